"""ServiceAccount tokens: issued by the TokenRequest subresource, accepted on requests while they hold.

A token is a JWT signed with DIR/pki/sa.key, naming its ServiceAccount (and the Pod or Secret it is
bound to, if any) by name and uid, its audiences and expiry, as upstream's claims do. It is accepted
only while its signature, issuer, time window and audience hold and the ServiceAccount and bound
object still exist with the same uids, so deleting either revokes it at once.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import orjson

from apiserver import errors
from apiserver.auth.jws import SigningKey
from apiserver.auth.rbac import service_account_user
from apiserver.auth.tokens import AUTHENTICATED_GROUP, CREDENTIAL_ID, Extra, User
from apiserver.kinds.validation import invalid_value
from apiserver.storage.interface import Store

ISSUER = "https://kubernetes.default.svc.cluster.local"
DEFAULT_EXPIRATION_SECONDS = 3600
_MIN_EXPIRATION_SECONDS = 600
_MAX_EXPIRATION_SECONDS = 1 << 32
_CLAIMS = "kubernetes.io"
# Bindable kinds: (storage key, claim name, namespaced).
_BOUND = {"Pod": ("pods", "pod", True), "Secret": ("secrets", "secret", True), "Node": ("nodes", "node", False)}
# Verified signatures remembered (a verify costs more than the rest of a read); past this, start over.
_MAX_VERIFIED = 10_000


def _rfc3339(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _object(store: Store, storage_key: str, namespace: str, name: str) -> dict[str, Any] | None:
    stored = store.latest((storage_key, namespace, name))
    return None if stored is None else orjson.loads(stored.data)


class ServiceAccountTokens:
    def __init__(self, store: Store, key: SigningKey, issuers: tuple[str, ...] = (ISSUER,)) -> None:
        """`issuers` as kube-apiserver's --service-account-issuer: the first names new tokens, any is accepted."""
        self._store = store
        self._key = key
        self._issuers = issuers
        # kube-apiserver's --api-audiences default: the first issuer.
        self.api_audiences = issuers[:1]
        self._verified: dict[str, dict[str, Any]] = {}

    # -- issuing -------------------------------------------------------------------------------

    def token_request(self, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        """The TokenRequest answer for POST .../serviceaccounts/NAME/token."""
        meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        if meta.get("name") and meta["name"] != name:
            raise errors.invalid("TokenRequest", "authentication.k8s.io", name, [invalid_value(
                "metadata.name", meta["name"], "must match the service account name if specified")])
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise errors.invalid("TokenRequest", "authentication.k8s.io", name, [invalid_value(
                "metadata.namespace", meta["namespace"], "must match the service account namespace if specified")])
        account = _object(self._store, "serviceaccounts", namespace, name)
        if account is None:
            raise errors.not_found("serviceaccounts", "", name)
        spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
        assert isinstance(spec, dict)
        audiences = [a for a in spec.get("audiences") or () if isinstance(a, str)] or list(self.api_audiences)
        expiration = spec.get("expirationSeconds")
        expiration = DEFAULT_EXPIRATION_SECONDS if expiration is None else expiration
        if not isinstance(expiration, int) or expiration < _MIN_EXPIRATION_SECONDS:
            raise errors.invalid("TokenRequest", "authentication.k8s.io", "", [invalid_value(
                "spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")])
        if expiration > _MAX_EXPIRATION_SECONDS:
            raise errors.invalid("TokenRequest", "authentication.k8s.io", "", [invalid_value(
                "spec.expirationSeconds", expiration, "may not specify a duration larger than 2^32 seconds")])
        now = int(time.time())
        claims: dict[str, Any] = {
            "aud": audiences, "exp": now + expiration, "iat": now, "iss": self._issuers[0], "jti": str(uuid.uuid4()),
            _CLAIMS: {"namespace": namespace,
                      "serviceaccount": {"name": name, "uid": account["metadata"].get("uid", "")}},
            "nbf": now, "sub": service_account_user(namespace, name)}
        ref = spec.get("boundObjectRef")
        if isinstance(ref, dict):
            claims[_CLAIMS].update(self._bound(namespace, name, ref))
        return {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
                "metadata": {"name": name, "namespace": namespace, "creationTimestamp": _rfc3339(now)},
                "spec": {"audiences": audiences, "expirationSeconds": expiration,
                         "boundObjectRef": ref if isinstance(ref, dict) else None},
                "status": {"token": self._key.sign(claims), "expirationTimestamp": _rfc3339(now + expiration)}}

    def _bound(self, namespace: str, account: str, ref: dict[str, Any]) -> dict[str, Any]:
        kind, api_version, name = ref.get("kind", ""), ref.get("apiVersion", ""), str(ref.get("name", ""))
        if api_version != "v1" or kind not in _BOUND:
            group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
            version = api_version.rsplit("/", 1)[-1]
            raise errors.bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
        storage_key, claim, namespaced = _BOUND[kind]
        obj = _object(self._store, storage_key, namespace if namespaced else "", name)
        if obj is None:
            raise errors.not_found(storage_key, "", name)
        if kind == "Pod" and (obj.get("spec") or {}).get("serviceAccountName") != account:
            raise errors.bad_request(f'cannot bind token for serviceaccount "{account}" to pod running with '
                                     "different serviceaccount name.")
        uid = obj["metadata"].get("uid", "")
        if ref.get("uid") and ref["uid"] != uid:
            raise errors.conflict(kind, "", name, f"the UID in the bound object reference ({ref['uid']}) does not "
                                  "match the UID in record. The object might have been deleted and then recreated")
        bound = {claim: {"name": name, "uid": uid}}
        node_name = (obj.get("spec") or {}).get("nodeName") if kind == "Pod" else None
        node = _object(self._store, "nodes", "", node_name) if node_name else None
        if node is not None:
            # A scheduled pod's token names its node too, for the node-name and node-uid extras.
            bound["node"] = {"name": node_name, "uid": node["metadata"].get("uid", "")}
        return bound

    # -- accepting -----------------------------------------------------------------------------

    def _claims(self, token: str) -> dict[str, Any] | None:
        claims = self._verified.get(token)
        if claims is None:
            claims = self._key.verify(token)
            if claims is None:
                return None
            if len(self._verified) >= _MAX_VERIFIED:
                self._verified = {}
            self._verified[token] = claims
        return claims

    def authenticate(self, token: str, audiences: tuple[str, ...] = ()) -> tuple[User, list[str]] | None:
        """The ServiceAccount a token speaks for and the audiences (default: the API's) it was accepted for."""
        audiences = audiences or self.api_audiences
        claims = self._claims(token)
        if claims is None or claims.get("iss") not in self._issuers:
            return None
        now = time.time()
        exp, nbf = claims.get("exp"), claims.get("nbf")
        if not isinstance(exp, int) or exp <= now or (isinstance(nbf, int) and nbf > now):
            return None
        aud = claims.get("aud")
        token_audiences = [aud] if isinstance(aud, str) else [a for a in aud or () if isinstance(a, str)]
        accepted = [a for a in audiences if a in token_audiences]
        if not accepted:
            return None
        private = claims.get(_CLAIMS)
        if not isinstance(private, dict):
            return None
        namespace = private.get("namespace")
        account = private.get("serviceaccount") or {}
        if not isinstance(namespace, str) or not isinstance(account, dict):
            return None
        live = _object(self._store, "serviceaccounts", namespace, str(account.get("name", "")))
        if live is None or live["metadata"].get("uid") != account.get("uid"):
            return None
        for kind, (storage_key, claim, namespaced) in _BOUND.items():
            bound = private.get(claim)
            if bound is None or (kind == "Node" and "pod" in private):
                continue  # the node of a pod-bound token only tells where the pod ran
            obj = _object(self._store, storage_key, namespace if namespaced else "", str(bound.get("name", "")))
            if obj is None or obj["metadata"].get("uid") != bound.get("uid"):
                return None
            deleting = obj["metadata"].get("deletionTimestamp")
            if kind == "Pod" and deleting and deleting <= _rfc3339(now):
                return None
        name = str(account.get("name", ""))
        user = User(service_account_user(namespace, name), str(account.get("uid", "")),
                    ("system:serviceaccounts", f"system:serviceaccounts:{namespace}", AUTHENTICATED_GROUP),
                    _extra(claims, private))
        return user, accepted


def _extra(claims: dict[str, Any], private: dict[str, Any]) -> Extra:
    """The extras upstream's authenticator derives from a token: its id, and the pod and node it names."""
    extra: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(claims.get("jti"), str) and claims["jti"]:
        extra.append((CREDENTIAL_ID, (f"JTI={claims['jti']}",)))
    for claim in ("node", "pod"):
        bound = private.get(claim)
        if isinstance(bound, dict):
            for field in ("name", "uid"):
                if bound.get(field):
                    extra.append((f"authentication.kubernetes.io/{claim}-{field}", (str(bound[field]),)))
    return tuple(extra)
