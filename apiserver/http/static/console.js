// The console: `kubectl get -w` in a browser, drawn from the server's own Tables.
// Every request is an ordinary API request with the user's token; the live feed is the ordinary watch
// of Tables, read as a stream. Cells are always drawn as text.
'use strict';

const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const TOKEN_KEY = 'fastkube.console.token';
const ALL = '';  // the namespace choice "all namespaces"

const $ = (id) => document.getElementById(id);

class ApiError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

const session = {
  token: sessionStorage.getItem(TOKEN_KEY) || '',
  // Server clock minus ours, so ages tick from the server's idea of now (as its cells were rendered).
  skewMs: 0,
};

// A browser's WebSocket cannot send headers: the token goes as kube-apiserver's bearer subprotocol,
// beside a protocol of the feed's own for the server to echo back.
function feedProtocols() {
  const protocols = ['watch.console.fastkube'];
  if (session.token) {
    const bytes = new TextEncoder().encode(session.token);
    const encoded = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    protocols.unshift('base64url.bearer.authorization.k8s.io.' + encoded);
  }
  return protocols;
}

function headers(accept) {
  const h = { Accept: accept };
  if (session.token) h.Authorization = 'Bearer ' + session.token;
  return h;
}

async function statusMessage(resp) {
  const text = await resp.text();
  try {
    const status = JSON.parse(text);
    if (status && status.kind === 'Status' && status.message) return status.message;
  } catch (e) { /* not a Status: say what the server said */ }
  return `${resp.status} ${resp.statusText}: ${text.slice(0, 200)}`;
}

async function get(path, accept = 'application/json', signal = undefined) {
  const resp = await fetch(path, { headers: headers(accept), cache: 'no-store', signal });
  if (!resp.ok) throw new ApiError(resp.status, await statusMessage(resp));
  const date = resp.headers.get('Date');
  if (date) session.skewMs = Date.parse(date) - Date.now();
  return accept.includes('yaml') ? resp.text() : resp.json();
}

// --- the view an address names: /console/namespaces/NS/RESOURCE, /console/all/RESOURCE ------------

function viewFromLocation() {
  const parts = location.pathname.replace(/^\/console\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(location.search);
  const view = { namespace: 'default', resource: 'pods', selector: query.get('labelSelector') || '',
                 wide: query.get('wide') === '1' };
  if (parts[0] === 'namespaces' && parts.length === 3) {
    view.namespace = parts[1];
    view.resource = parts[2];
  } else if (parts[0] === 'all' && parts.length === 2) {
    view.namespace = ALL;
    view.resource = parts[1];
  }
  return view;
}

function addressOf(view) {
  const where = view.namespace === ALL ? 'all' : 'namespaces/' + encodeURIComponent(view.namespace);
  const query = new URLSearchParams();
  if (view.selector) query.set('labelSelector', view.selector);
  if (view.wide) query.set('wide', '1');
  const q = query.toString();
  return `/console/${where}/${encodeURIComponent(view.resource)}${q ? '?' + q : ''}`;
}

// --- discovery: resources as kubectl names them (plural, or plural.group) --------------------------

const catalog = { byName: new Map(), names: [] };

async function loadCatalog() {
  const [core, groups] = await Promise.all([get('/api', DISCOVERY), get('/apis', DISCOVERY)]);
  catalog.byName.clear();
  for (const group of [...core.items, ...groups.items]) {
    const groupName = group.metadata.name || '';
    const preferred = group.versions[0];  // discovery lists the preferred version first
    for (const r of preferred.resources) {
      if (!r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
      const name = groupName ? `${r.resource}.${groupName}` : r.resource;
      const entry = { name, group: groupName, version: preferred.version, plural: r.resource,
                      namespaced: r.scope === 'Namespaced', shortNames: r.shortNames || [] };
      catalog.byName.set(name, entry);
    }
  }
  catalog.names = [...catalog.byName.keys()].sort();
  const list = $('resources');
  list.replaceChildren(...catalog.names.map((n) => Object.assign(document.createElement('option'), { value: n })));
}

function resolve(name) {
  if (catalog.byName.has(name)) return catalog.byName.get(name);
  // kubectl's other spellings: a short name, or a plural whose group is unique.
  for (const entry of catalog.byName.values()) {
    if (entry.shortNames.includes(name) || entry.plural === name) return entry;
  }
  return null;
}

function collectionPath(entry, namespace) {
  const base = entry.group ? `/apis/${entry.group}/${entry.version}` : `/api/${entry.version}`;
  const ns = entry.namespaced && namespace !== ALL ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${entry.plural}`;
}

async function loadNamespaces(current) {
  const select = $('namespace');
  let names = [];
  try {
    names = (await get('/api/v1/namespaces')).items.map((ns) => ns.metadata.name);
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 403) throw e;
  }
  if (current !== ALL && !names.includes(current)) names.push(current);
  const options = [Object.assign(document.createElement('option'), { value: ALL, textContent: 'all namespaces' })];
  for (const n of names.sort()) options.push(Object.assign(document.createElement('option'), { value: n, textContent: n }));
  select.replaceChildren(...options);
  select.value = current;
}

// --- ages: kubectl's HumanDuration, so a ticking cell reads as the server would print it -----------

function humanDuration(ms) {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

// --- the live table ----------------------------------------------------------------------------

class LiveTable {
  constructor(entry, view) {
    this.entry = entry;
    this.view = view;
    this.columns = null;      // the server's column definitions
    this.shown = [];          // indexes of the columns this view shows
    this.rows = new Map();    // uid -> <tr>
    this.abort = new AbortController();
    this.resourceVersion = '';
    this.showNamespace = entry.namespaced && view.namespace === ALL;
  }

  query(extra) {
    const q = new URLSearchParams(extra);
    if (this.view.selector) q.set('labelSelector', this.view.selector);
    return q.toString();
  }

  async start() {
    await this.list();
    this.watchLoop();
  }

  stop() { this.abort.abort(); }

  async list() {
    const path = collectionPath(this.entry, this.view.namespace);
    const table = await get(`${path}?${this.query({ limit: '500' })}`, TABLE, this.abort.signal);
    let page = table;
    const rows = [...table.rows];
    while (page.metadata && page.metadata.continue) {
      page = await get(`${path}?${this.query({ limit: '500', continue: page.metadata.continue })}`, TABLE,
                       this.abort.signal);
      rows.push(...page.rows);
    }
    this.setColumns(table.columnDefinitions);
    this.rows.clear();
    $('resource-table').tBodies[0].replaceChildren();
    for (const row of rows) this.upsert(row);
    this.resourceVersion = page.metadata.resourceVersion;
    this.report();
  }

  // The feed: the server's watch of Tables relayed over a WebSocket (see apiserver/http/console.py).
  async watchLoop() {
    const path = collectionPath(this.entry, this.view.namespace);
    while (!this.abort.signal.aborted) {
      const q = this.query({ allowWatchBookmarks: 'true', resourceVersion: this.resourceVersion });
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      try {
        await this.follow(new WebSocket(`${scheme}//${location.host}/console/feed${path}?${q}`, feedProtocols()));
      } catch (e) {
        if (this.abort.signal.aborted) return;
        if (e instanceof ApiError && e.code === 410) { await this.list(); continue; }
        if (e instanceof ApiError && e.code === 401) { askForToken('That token is no longer accepted.'); return; }
        showMessage(e.message || String(e));
      }
      // A watch ends at the server's timeout, or when the server drops a watcher that fell behind:
      // pick up from the last resourceVersion seen, after a pause if it ended at once.
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  follow(socket) {
    socket.binaryType = 'arraybuffer';
    const decoder = new TextDecoder();
    let buffered = '';
    let failure = null;
    return new Promise((resolve, reject) => {
      this.abort.signal.addEventListener('abort', () => socket.close(1000), { once: true });
      socket.addEventListener('open', () => { setState('live'); showMessage(''); });
      socket.addEventListener('message', (message) => {
        buffered += decoder.decode(message.data, { stream: true });
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (!line.trim() || failure) continue;
          try { this.apply(JSON.parse(line)); } catch (e) { failure = e; socket.close(1000); }
        }
      });
      socket.addEventListener('close', () => (failure ? reject(failure) : resolve()));
    });
  }

  apply(event) {
    const object = event.object || {};
    if (event.type === 'ERROR') throw new ApiError(object.code || 500, object.message || 'watch error');
    if (object.metadata && object.metadata.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') return;
    if (object.columnDefinitions && !this.columns) this.setColumns(object.columnDefinitions);
    for (const row of object.rows || []) {
      if (event.type === 'DELETED') this.remove(row); else this.upsert(row);
    }
    this.report();
  }

  setColumns(definitions) {
    this.columns = definitions;
    this.shown = definitions.map((c, i) => i).filter((i) => this.view.wide || !definitions[i].priority);
    const names = this.shown.map((i) => definitions[i].name.toUpperCase());
    if (this.showNamespace) names.unshift('NAMESPACE');
    $('resource-table').tHead.rows[0].replaceChildren(
      ...names.map((n) => Object.assign(document.createElement('th'), { textContent: n })));
  }

  cellsOf(row) {
    const meta = (row.object && row.object.metadata) || {};
    const cells = this.shown.map((i) => {
      const value = row.cells[i];
      const td = document.createElement('td');
      td.textContent = value === null || value === undefined ? '<none>' : String(value);
      if (this.columns[i].name === 'Age' && meta.creationTimestamp) td.dataset.created = meta.creationTimestamp;
      return td;
    });
    if (this.showNamespace) cells.unshift(Object.assign(document.createElement('td'), { textContent: meta.namespace || '' }));
    return cells;
  }

  upsert(row) {
    const meta = (row.object && row.object.metadata) || {};
    const key = meta.uid || `${meta.namespace || ''}/${meta.name}`;
    let tr = this.rows.get(key);
    if (!tr) {
      tr = document.createElement('tr');
      tr.addEventListener('click', () => showDetail(this.entry, tr.dataset.namespace, tr.dataset.name));
      this.rows.set(key, tr);
      $('resource-table').tBodies[0].append(tr);
    }
    tr.dataset.uid = meta.uid || '';
    tr.dataset.name = meta.name || '';
    tr.dataset.namespace = meta.namespace || '';
    tr.replaceChildren(...this.cellsOf(row));
  }

  remove(row) {
    const meta = (row.object && row.object.metadata) || {};
    const key = meta.uid || `${meta.namespace || ''}/${meta.name}`;
    const tr = this.rows.get(key);
    if (tr) { tr.remove(); this.rows.delete(key); }
  }

  report() {
    const where = this.view.namespace === ALL ? 'all namespaces' : `namespace ${this.view.namespace}`;
    $('status').textContent = `${this.entry.name} in ${where}: ${this.rows.size} ` +
      `${this.rows.size === 1 ? 'row' : 'rows'} at resourceVersion ${this.resourceVersion}`;
    if (this.rows.size === 0) $('status').textContent += ' (no resources found)';
  }
}

function tickAges() {
  const now = Date.now() + session.skewMs;
  for (const td of document.querySelectorAll('td[data-created]')) {
    const text = humanDuration(now - Date.parse(td.dataset.created));
    if (td.textContent !== text) td.textContent = text;
  }
}

// --- details: the object as YAML, and its events ------------------------------------------------

async function showDetail(entry, namespace, name) {
  const path = `${collectionPath(entry, namespace || ALL)}/${encodeURIComponent(name)}`;
  $('detail').hidden = false;
  $('detail-title').textContent = `${entry.name}/${name}`;
  $('detail-yaml').textContent = '';
  $('detail-events').tBodies[0].replaceChildren();
  $('detail-events-message').hidden = true;
  try {
    $('detail-yaml').textContent = await get(path, 'application/yaml');
  } catch (e) {
    $('detail-yaml').textContent = e.message;
  }
  const object = await get(path).catch(() => null);
  if (!object) return;
  const ns = object.metadata.namespace;
  const events = ns ? `/api/v1/namespaces/${encodeURIComponent(ns)}/events` : '/api/v1/events';
  try {
    const table = await get(`${events}?fieldSelector=${encodeURIComponent('involvedObject.uid=' + object.metadata.uid)}`, TABLE);
    const shown = table.columnDefinitions.map((c, i) => i).filter((i) => !table.columnDefinitions[i].priority);
    $('detail-events').tHead.rows[0].replaceChildren(...shown.map((i) =>
      Object.assign(document.createElement('th'), { textContent: table.columnDefinitions[i].name.toUpperCase() })));
    $('detail-events').tBodies[0].replaceChildren(...table.rows.map((row) => {
      const tr = document.createElement('tr');
      tr.replaceChildren(...shown.map((i) => Object.assign(document.createElement('td'), { textContent: String(row.cells[i] ?? '<none>') })));
      return tr;
    }));
    if (table.rows.length === 0) showEventsMessage('No events.');
  } catch (e) {
    showEventsMessage(e.message);
  }
}

function showEventsMessage(text) {
  $('detail-events-message').textContent = text;
  $('detail-events-message').hidden = false;
}

// --- the page ------------------------------------------------------------------------------------

let live = null;

function setState(state) { document.body.dataset.state = state; }

function showMessage(text) {
  $('message').textContent = text;
  $('message').hidden = !text;
}

async function render() {
  if (live) live.stop();
  live = null;
  const view = viewFromLocation();
  $('resource').value = view.resource;
  $('selector').value = view.selector;
  $('wide').checked = view.wide;
  $('detail').hidden = true;
  showMessage('');
  $('status').textContent = '';
  $('resource-table').tHead.rows[0].replaceChildren();
  $('resource-table').tBodies[0].replaceChildren();
  setState('loading');
  await loadNamespaces(view.namespace);
  const entry = resolve(view.resource);
  if (!entry) {
    showMessage(`the server doesn't have a resource type "${view.resource}"`);
    setState('error');
    return;
  }
  live = new LiveTable(entry, view);
  try {
    await live.start();
  } catch (e) {
    if (live.abort.signal.aborted) return;
    live.stop();
    showMessage(e.message || String(e));
    setState(e instanceof ApiError && e.code === 403 ? 'forbidden' : 'error');
  }
}

function navigate(view) {
  history.pushState(null, '', addressOf(view));
  render().catch(fail);
}

function fail(e) {
  if (e instanceof ApiError && e.code === 401) { askForToken('That token was not accepted.'); return; }
  showMessage(e.message || String(e));
  setState('error');
}

function askForToken(why) {
  if (live) live.stop();
  $('main').hidden = true;
  $('detail').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = why;
  $('logout').hidden = true;
  setState('login');
  $('token').focus();
}

async function start() {
  $('login').hidden = true;
  try {
    // Who am I: also proves the token (or a proxy's header) before anything else is drawn.
    const review = await fetch('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      method: 'POST', headers: { ...headers('application/json'), 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
    if (review.status === 401) { askForToken(session.token ? 'That token was not accepted.' : ''); return; }
    if (review.ok) {
      const info = (await review.json()).status.userInfo;
      $('user').textContent = info.username;
    } else {
      // Servers without the review API: any authenticated read proves the token.
      await get('/version');
      $('user').textContent = '';
    }
  } catch (e) {
    fail(e);
    return;
  }
  $('logout').hidden = !session.token;
  $('main').hidden = false;
  await loadCatalog();
  await render();
}

document.addEventListener('DOMContentLoaded', () => {
  $('login').addEventListener('submit', (e) => {
    e.preventDefault();
    session.token = $('token').value.trim();
    sessionStorage.setItem(TOKEN_KEY, session.token);
    $('token').value = '';
    start().catch(fail);
  });
  $('logout').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    session.token = '';
    askForToken('');
  });
  $('view-form').addEventListener('submit', (e) => {
    e.preventDefault();
    navigate({ namespace: $('namespace').value, resource: $('resource').value.trim(),
               selector: $('selector').value.trim(), wide: $('wide').checked });
  });
  $('namespace').addEventListener('change', () => $('view-form').requestSubmit());
  $('wide').addEventListener('change', () => $('view-form').requestSubmit());
  $('detail-close').addEventListener('click', () => { $('detail').hidden = true; });
  window.addEventListener('popstate', () => render().catch(fail));
  // A page kept in the back/forward cache would hold its watch open on the server: let it go, and
  // pick the view up again if the page is shown once more.
  window.addEventListener('pagehide', () => { if (live) live.stop(); });
  window.addEventListener('pageshow', (e) => { if (e.persisted && !$('main').hidden) render().catch(fail); });
  setInterval(tickAges, 1000);
  start().catch(fail);
});
