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
from apiserver.kinds.resources import ResourceType
from apiserver.kinds.validation import invalid_value
from apiserver.storage.interface import Store

ISSUER = "https://kubernetes.default.svc.cluster.local"
GROUP = "authentication.k8s.io"
# What a TokenRequest body is decoded as (the serviceaccounts/token subresource's kind).
TOKEN_REQUEST = ResourceType(GROUP, "v1", "TokenRequest", "serviceaccounts", "", True, verbs=("create",), synthetic=True)
DEFAULT_EXPIRATION_SECONDS = 3600
_MIN_EXPIRATION_SECONDS = 600
_MAX_EXPIRATION_SECONDS = 1 << 32
_CLAIMS = "kubernetes.io"
# Bindable kinds: (storage key, claim name, namespaced).
_BOUND = {"Pod": ("pods", "pod", True), "Secret": ("secrets", "secret", True), "Node": ("nodes", "node", False)}
# Verified signatures remembered (a verify costs more than the rest of a read); past this, start over.
_MAX_VERIFIED = 10_000


def _group_version(api_version: str) -> tuple[str, str]:
    """schema.FromAPIVersionAndKind's reading: ParseGroupVersion, or no group and version when it fails."""
    if api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


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

    def prepare_request(self, namespace: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
        """TokenREST.Create up to its validating admission: the request decoded, defaulted, given its
        managedFields and through mutating admission comes in; it leaves with the service account's name,
        namespace and uid, the API's audiences if it asked none, and ValidateTokenRequest passed."""
        meta = request["metadata"]
        if meta.get("name") and meta["name"] != name:
            raise errors.invalid("TokenRequest", GROUP, name, [invalid_value(
                "metadata.name", meta["name"], "must match the service account name if specified")])
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise errors.invalid("TokenRequest", GROUP, name, [invalid_value(
                "metadata.namespace", meta["namespace"], "must match the service account namespace if specified")])
        account = _object(self._store, "serviceaccounts", namespace, name)
        if account is None:
            raise errors.not_found("serviceaccounts", "", name)
        uid = account["metadata"].get("uid", "")
        if meta.get("uid") and meta["uid"] != uid:
            # TokenRequestServiceAccountUIDValidation, beta and on at 1.36
            raise errors.conflict("TokenRequest", GROUP, name, f"the UID in the token request ({meta['uid']}) does "
                                  f"not match the UID of the service account ({uid})")
        spec = request["spec"] = request.get("spec") or {}
        if not spec.get("audiences"):
            spec["audiences"] = list(self.api_audiences)
        meta["name"], meta["namespace"], meta["uid"] = name, namespace, uid
        meta["creationTimestamp"] = _rfc3339(time.time())
        request.pop("status", None)
        expiration = spec["expirationSeconds"]
        if expiration < _MIN_EXPIRATION_SECONDS:
            raise errors.invalid("TokenRequest", GROUP, "", [invalid_value(
                "spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")])
        if expiration > _MAX_EXPIRATION_SECONDS:
            raise errors.invalid("TokenRequest", GROUP, "", [invalid_value(
                "spec.expirationSeconds", expiration, "may not specify a duration larger than 2^32 seconds")])
        return request

    def issue(self, request: dict[str, Any]) -> dict[str, Any]:
        """The rest of TokenREST.Create, on an admitted request: the object it binds the token to, the
        token, and the request answered with its status."""
        meta, spec = request["metadata"], request["spec"]
        namespace, name = meta["namespace"], meta["name"]
        now = int(time.time())
        expiration = spec["expirationSeconds"]
        claims: dict[str, Any] = {
            "aud": spec["audiences"], "exp": now + expiration, "iat": now, "iss": self._issuers[0],
            "jti": str(uuid.uuid4()),
            _CLAIMS: {"namespace": namespace, "serviceaccount": {"name": name, "uid": meta["uid"]}},
            "nbf": now, "sub": service_account_user(namespace, name)}
        ref = spec.get("boundObjectRef")
        if isinstance(ref, dict):
            claims[_CLAIMS].update(self._bound(namespace, name, ref))
        return {**request, "status": {"token": self._key.sign(claims),
                                      "expirationTimestamp": _rfc3339(now + expiration)}}

    def _bound(self, namespace: str, account: str, ref: dict[str, Any]) -> dict[str, Any]:
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        group, version = _group_version(str(ref.get("apiVersion") or ""))
        if group or kind not in _BOUND:  # the version is not asked (schema.FromAPIVersionAndKind's group only)
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
