"""A local OpenID provider over idpyoidc 5.0.0 (`idpyoidc.server`) for SessionKit's integration tests.

idpyoidc is a library, not a server: this file is its web front end, on the standard library's
wsgiref, on 127.0.0.1 only. It serves:

  /.well-known/openid-configuration   discovery
  /jwks                               the provider's public keys (RS256 id_tokens and tokens)
  /authorization                      the code flow; a user signs in with the X-Test-User header
  /token                              authorization code + PKCE, refresh; DPoP (RFC 9449) optional
  /userinfo                           Bearer or DPoP access tokens
  /registration                       dynamic client registration (RFC 7591)
  /registration_api                   the client configuration endpoint (RFC 7592): GET reads, DELETE deletes
  /revocation                         RFC 7009

Clients (made by `setup`, which also writes the confidential client's keys):
  sessionkit-idp               public, token_endpoint_auth_method none, redirect com.example.app:/callback
  sessionkit-idp-confidential  private_key_jwt with an RSA key (RS256) and a P-256 key (ES256)

Non-interactive sign-in: `GET /authorization?...` with the header `X-Test-User: <name>` signs
that user in and answers 302 to the redirect URI with the code. A person in a browser (the
walkthrough) gets a one-field form instead, which sends the same request with `test_user=<name>`.
There are no passwords: any user name is a user; its claims are made up from the name.

Where idpyoidc 5.0.0 gets DPoP or OAuth wrong, this front end works around it; each place says
why (search for "idpyoidc 5.0.0:"). The Swift client is never bent to the provider.

  python idp_server.py setup STATE_DIR           keys and client registrations (idempotent)
  python idp_server.py serve STATE_DIR PORT      serve until SIGTERM
"""

import base64
import contextvars
import hashlib
import json
import logging
import os
import signal
import sys
import time
from urllib.parse import parse_qs, parse_qsl, urlencode, urlparse, urlunparse
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

PUBLIC_CLIENT_ID = "sessionkit-idp"
CONFIDENTIAL_CLIENT_ID = "sessionkit-idp-confidential"
REDIRECT_URIS = ["com.example.app:/callback", "http://127.0.0.1/callback"]
POST_LOGOUT_REDIRECT_URI = "com.example.app:/logged-out"
USER_HEADER = "X-Test-User"
RSA_CLIENT_KID = "client-rs256"
EC_CLIENT_KID = "client-es256"
# The window around the server's clock in which a DPoP proof's iat is accepted (RFC 9449 §11.1).
DPOP_IAT_WINDOW_SECONDS = 60
SCOPES = ["openid", "profile", "email", "offline_access"]

log = logging.getLogger("idp_server")

# The user named by the X-Test-User header of the request being served.
CURRENT_USER = contextvars.ContextVar("CURRENT_USER", default=None)


# ---------------------------------------------------------------------------------------------
# setup: the confidential client's key pairs, written once into the state directory


def setup(state_dir):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    os.makedirs(state_dir, exist_ok=True)
    rsa_path = os.path.join(state_dir, "client-rs256.pem")
    ec_path = os.path.join(state_dir, "client-es256.pem")
    if not os.path.exists(rsa_path):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        # PKCS#8 ("BEGIN PRIVATE KEY").
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        write_private(rsa_path, pem)
    if not os.path.exists(ec_path):
        key = ec.generate_private_key(ec.SECP256R1())
        # The traditional SEC 1 form ("BEGIN EC PRIVATE KEY"), so both PEM forms are exercised.
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
        )
        write_private(ec_path, pem)
    with open(os.path.join(state_dir, "client-jwks.json"), "w") as out:
        json.dump(client_jwks(state_dir), out, indent=1)


def write_private(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def client_jwks(state_dir):
    from cryptojwt.jwk.ec import ECKey
    from cryptojwt.jwk.rsa import RSAKey
    from cryptography.hazmat.primitives import serialization

    keys = []
    with open(os.path.join(state_dir, "client-rs256.pem"), "rb") as f:
        private = serialization.load_pem_private_key(f.read(), password=None)
        keys.append(RSAKey(pub_key=private.public_key(), kid=RSA_CLIENT_KID, use="sig", alg="RS256").serialize())
    with open(os.path.join(state_dir, "client-es256.pem"), "rb") as f:
        private = serialization.load_pem_private_key(f.read(), password=None)
        keys.append(ECKey(pub_key=private.public_key(), kid=EC_CLIENT_KID, use="sig", alg="ES256").serialize())
    return {"keys": keys}


# ---------------------------------------------------------------------------------------------
# The provider


def make_server_config(state_dir, issuer):
    return {
        "issuer": issuer,
        "httpc_params": {"verify": False},
        "keys": {
            "private_path": os.path.join(state_dir, "private", "jwks.json"),
            "public_path": os.path.join(state_dir, "public", "jwks.json"),
            # RSA only: id_tokens and JWT access tokens are RS256.
            "key_defs": [{"type": "RSA", "use": ["sig"]}],
            "uri_path": "jwks",
            "read_only": False,
        },
        "token_handler_args": {
            "jwks_def": {
                "private_path": os.path.join(state_dir, "private", "token_jwks.json"),
                "read_only": False,
                "key_defs": [{"type": "oct", "bytes": "24", "use": ["enc"], "kid": "code"}],
            },
            "code": {"kwargs": {"lifetime": 600}},
            # idpyoidc 5.0.0: JWTToken signs ES256 by default, which an RSA-only key set cannot.
            "token": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 3600, "alg": "RS256", "add_claims_by_scope": True},
            },
            "refresh": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 86400, "alg": "RS256"},
            },
            "id_token": {
                "class": "idpyoidc.server.token.id_token.IDToken",
                "kwargs": {"default_signing_algorithm": "RS256"},
            },
        },
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "private_path": os.path.join(state_dir, "private", "cookie_jwks.json"),
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ],
                    "read_only": False,
                },
                "name": {"session": "oidc_op", "register": "oidc_op_rp", "session_management": "sman"},
            },
        },
        "authentication": {
            "header": {
                "acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:InternetProtocolPassword",
                "class": HeaderAuthn,
                "kwargs": {},
            }
        },
        "userinfo": {"class": MadeUpUserInfo, "kwargs": {}},
        "subject_types_supported": ["public"],
        "preference": {"subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"]},
        "template_dir": state_dir,
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                        },
                        "access_token": {},
                        "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"]},
                    },
                    "expires_in": 43200,
                }
            },
        },
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                # S256 only (RFC 7636 §4.2; plain is not offered).
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": hashlib.sha256}},
            },
            "dpop": {
                "function": add_dpop_support,
                "kwargs": {"dpop_signing_alg_values_supported": ["ES256", "RS256"], "dpop_endpoints": ["token", "userinfo"]},
            },
        },
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "registration": {
                "path": "registration",
                "class": Registration,
                "kwargs": {"client_authn_method": None, "client_secret_expires_in": 2592000},
            },
            "registration_api": {
                "path": "registration_api",
                "class": "idpyoidc.server.oidc.read_registration.RegistrationRead",
                "kwargs": {"client_authn_method": ["bearer_header"]},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {
                    "client_authn_method": ["none", "private_key_jwt", "client_secret_basic", "client_secret_post"],
                    # A refresh answers a new refresh token and retires the one presented.
                    "revoke_refresh_on_issue": True,
                },
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header", "dpop"]},
            },
            "revocation": {
                "path": "revocation",
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": ["none", "private_key_jwt", "client_secret_basic", "client_secret_post"]},
            },
        },
        "scopes_to_claims": {
            "openid": ["sub"],
            "profile": ["name", "preferred_username"],
            "email": ["email", "email_verified"],
            "offline_access": [],
        },
    }


from idpyoidc.server.user_authn.user import UserAuthnMethod  # noqa: E402
from idpyoidc.server.user_info import UserInfo  # noqa: E402


class HeaderAuthn(UserAuthnMethod):
    """Signs in the user the X-Test-User header names; the front end refuses a request without it."""

    url_endpoint = "/authorization"

    def __call__(self, **kwargs):
        raise NotImplementedError("there is no login page: send the X-Test-User header")

    def authenticated_as(self, client_id="", cookie=None, **kwargs):
        user = CURRENT_USER.get()
        if not user:
            return None, 0
        return {"uid": user}, int(time.time())


from idpyoidc.server.oidc import registration as idpyoidc_registration  # noqa: E402


class Registration(idpyoidc_registration.Registration):
    """The registration endpoint (RFC 7591 §3), with two idpyoidc 5.0.0 faults worked around.

    idpyoidc 5.0.0: registering a client that brings no keys (`jwks`, `jwks_uri`) fails, whatever
    its method: `do_client_registration` ends with `logger.debug(f"Keys for {client_id}:
    {keyjar.key_summary(client_id)}")`, and the f-string is evaluated even when debug logging is
    off. cryptojwt's `KeyJar.key_summary` raises `IssuerNotFound` for an owner the key jar has never
    seen, and a public client (`none`) never gets an entry, nor does a secret client before its
    secret is added as a symmetric key, which happens only after that line. `process_request`
    catches the exception and answers `400 invalid_configuration_request` whose description is the
    new client id, for a request RFC 7591 §2 and Dynamic Client Registration 1.0 §2 make valid
    (`jwks` and `jwks_uri` are OPTIONAL). An empty key jar entry for the new id avoids it.

    idpyoidc 5.0.0: it issues a `client_secret` (with `client_secret_expires_at`) to every client,
    including one that registers `token_endpoint_auth_method` `none`, which RFC 7591 §2 defines as
    a public client that "does not have a client secret". Worse, its token endpoint then refuses
    that public client once the unused secret expires (`client_authn.valid_client_secret` runs for
    every method), so a public client would stop working after 30 days for a secret it never had a
    use for. A `none` registration is made here without a secret.

    idpyoidc 5.0.0: it does not hold a registered client to the `token_endpoint_auth_method` it
    registered (RFC 7591 §2). Its token endpoint tries each configured method in turn, `none`
    first, and `none` accepts any request that names a `client_id`; only a client entry with
    `token_endpoint_client_authn_method` is limited, and registration never writes one. So a
    client registered for `client_secret_basic` was accepted with a wrong secret, or none at all,
    where RFC 6749 §3.2.1 says a confidential client must authenticate. The registered method is
    written into the new client's entry for the token and revocation endpoints, as the
    preconfigured clients have it.
    """

    def do_client_registration(self, request, client_id, ignore=None):
        keyjar = self.upstream_get("attribute", "keyjar")
        if client_id not in keyjar:
            keyjar._add_issuer(client_id)
        return super().do_client_registration(request, client_id, ignore=ignore)

    def process_request(self, request=None, new_id=True, set_secret=True, **kwargs):
        if request is not None and request.get("token_endpoint_auth_method") == "none":
            set_secret = False
        answer = super().process_request(request, new_id=new_id, set_secret=set_secret, **kwargs)
        registered = answer.get("response_args") if isinstance(answer, dict) else None
        if registered is not None:
            # RFC 7591 §2: client_secret_basic when the request names no method.
            method = registered.get("token_endpoint_auth_method") or "client_secret_basic"
            client = self.upstream_get("context").cdb[registered["client_id"]]
            client["token_endpoint_client_authn_method"] = [method]
            client["revocation_endpoint_client_authn_method"] = [method]
        return answer


class MadeUpUserInfo(UserInfo):
    """Every user name is a user, with claims made from the name."""

    def __call__(self, user_id, client_id, user_info_claims=None, **kwargs):
        claims = {
            "name": f"Test User {user_id}",
            "preferred_username": user_id,
            "email": f"{user_id}@example.com",
            "email_verified": True,
        }
        return self.filter(claims, user_info_claims)

    def search(self, **kwargs):
        return None


# ---------------------------------------------------------------------------------------------
# DPoP


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class DPoPRefused(Exception):
    """A DPoP proof this provider refuses; the message is safe to send back."""


def add_dpop_support(endpoint, dpop_signing_alg_values_supported=None, dpop_endpoints=None, **kwargs):
    """Like `idpyoidc.server.oauth2.add_on.dpop.add_support`, with this front end's proof check.

    idpyoidc 5.0.0: its add_support installs one check for every endpoint, written for UserInfo:
    it compares `ath` with the hex SHA-256 digest of the access token, where RFC 9449 §4.2 says
    base64url of the digest, so a correct client is refused; it checks neither `iat` nor `jti`
    (§11.1), nor that `alg` is one it announced. `check_dpop_proof` below uses idpyoidc's proof
    parser and signature check and fixes those; nothing else of the add-on changes.
    """
    from idpyoidc.server.oauth2.add_on import dpop

    algs = list(dpop_signing_alg_values_supported or ["ES256"])
    added = False
    for name in dpop_endpoints or ["userinfo"]:
        target = endpoint.get(name)
        if target is None:
            continue
        if not added:
            dpop._add_to_context(target, algs)
            added = True
        target.post_parse_request.append(check_dpop_proof)


SEEN_JTIS = {}


def check_dpop_proof(request, client_id, context, auth_info=None, **kwargs):
    from cryptojwt import as_unicode
    from cryptojwt.jwk.jwk import key_from_jwk_dict
    from idpyoidc.server.oauth2.add_on.dpop import DPoPProof

    http_info = kwargs.get("http_info") or {}
    headers = http_info.get("headers") or {}
    proof_header = headers.get("dpop")
    token = (auth_info or {}).get("token")
    if not proof_header:
        # A token request without a proof gets Bearer tokens (RFC 9449 §5 leaves that to the
        # server); a DPoP-bound refresh token is refused by the front end. UserInfo with a
        # Bearer token takes none.
        return request
    try:
        proof = DPoPProof().verify_header(proof_header)
        if proof is None:
            raise DPoPRefused("the DPoP header is not a JWS")
        proof.verify()
        if proof.key is None:
            proof.key = key_from_jwk_dict(proof["jwk"])
    except DPoPRefused:
        raise
    except Exception as error:
        raise DPoPRefused(f"the DPoP proof does not verify: {type(error).__name__}")
    algs = context.add_on.get("dpop", {}).get("algs_supported", [])
    if proof["alg"] not in algs:
        raise DPoPRefused("the DPoP proof's alg is not supported")
    if proof["htm"] != http_info.get("method"):
        raise DPoPRefused("htm does not match the request method")
    if proof["htu"] != http_info.get("url", "").split("?")[0]:
        raise DPoPRefused("htu does not match the request URI")
    now = int(time.time())
    if abs(int(proof["iat"]) - now) > DPOP_IAT_WINDOW_SECONDS:
        raise DPoPRefused("the DPoP proof's iat is outside the accepted window")
    for jti, seen in list(SEEN_JTIS.items()):
        if seen < now - 2 * DPOP_IAT_WINDOW_SECONDS:
            del SEEN_JTIS[jti]
    if proof["jti"] in SEEN_JTIS:
        raise DPoPRefused("the DPoP proof's jti was used before")
    SEEN_JTIS[proof["jti"]] = now
    if token:
        # RFC 9449 §4.2: base64url of the SHA-256 of the access token's ASCII.
        expected = b64url(hashlib.sha256(token.encode("ascii")).digest())
        if proof.get("ath") != expected:
            raise DPoPRefused("ath does not match the access token")
        bound = bound_jkt_of_access_token(token)
        if bound and bound != as_unicode(proof.key.thumbprint("SHA-256")):
            raise DPoPRefused("the access token is bound to another key")
    request["dpop_jkt"] = as_unicode(proof.key.thumbprint("SHA-256"))
    return request


def bound_jkt_of_access_token(token):
    """The cnf.jkt of a JWT access token, read without verifying (the endpoint verifies it)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return (claims.get("cnf") or {}).get("jkt")
    except Exception:
        return None


# ---------------------------------------------------------------------------------------------
# The WSGI front end


class FrontEnd:
    def __init__(self, state_dir, issuer):
        from idpyoidc.server import Server
        from idpyoidc.server.configure import OPConfiguration

        os.makedirs(os.path.join(state_dir, "private"), exist_ok=True)
        os.makedirs(os.path.join(state_dir, "public"), exist_ok=True)
        self.issuer = issuer
        self.state_dir = state_dir
        config = OPConfiguration(conf=make_server_config(state_dir, issuer), base_path=state_dir, domain="127.0.0.1", port=0)
        self.server = Server(config, cwd=state_dir)
        self.context = self.server.context
        # idpyoidc 5.0.0: the DPoP add-on writes dpop_signing_alg_values_supported into the
        # provider info before the provider info is built, so discovery loses it, and with it the
        # refresh grant's DPoP branch (which looks for it there).
        self.context.provider_info["dpop_signing_alg_values_supported"] = self.context.add_on["dpop"]["algs_supported"]
        # idpyoidc 5.0.0: discovery lists only the confidential methods in
        # token_endpoint_auth_methods_supported (the configured "none" goes to a non-standard
        # token_endpoint_auth_methods), and registration checks a request against that list, so a
        # native public client could neither see nor register "none". RFC 8414 §2 lists "none".
        for key in ("token_endpoint_auth_methods_supported",):
            methods = list(self.context.provider_info.get(key, []))
            if "none" not in methods:
                self.context.provider_info[key] = methods + ["none"]
        # Refresh token -> the thumbprint of the key it is bound to; code -> the authorization
        # request's dpop_jkt (RFC 9449 §10).
        # idpyoidc 5.0.0: a client assertion's aud must name the very endpoint it is sent to, so an
        # assertion for the token endpoint (what clients send everywhere, RFC 7523 §3) is refused
        # at revocation, and one naming the issuer is refused everywhere. Both name this
        # authorization server, which is what RFC 7523 §3 asks the server to check.
        for name in ("token", "token_revocation"):
            target = self.server.endpoint[name]
            target.allowed_targets = list(dict.fromkeys(list(target.allowed_targets) + ["token", ""]))
        self.refresh_binding = {}
        self.code_binding = {}
        self.register_clients()

    def register_clients(self):
        self.context.cdb[PUBLIC_CLIENT_ID] = {
            "client_id": PUBLIC_CLIENT_ID,
            "client_salt": "public-salt",
            "redirect_uris": [(uri, {}) for uri in REDIRECT_URIS],
            "post_logout_redirect_uri": [POST_LOGOUT_REDIRECT_URI, ""],
            "response_types_supported": ["code"],
            "response_types": ["code"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
            # Per endpoint: a client-wide list would also apply to UserInfo's bearer check.
            "token_endpoint_client_authn_method": ["none"],
            "revocation_endpoint_client_authn_method": ["none"],
            "allowed_scopes": SCOPES,
            "application_type": "native",
        }
        self.context.cdb[CONFIDENTIAL_CLIENT_ID] = {
            "client_id": CONFIDENTIAL_CLIENT_ID,
            "client_salt": "confidential-salt",
            "redirect_uris": [(uri, {}) for uri in REDIRECT_URIS],
            "response_types_supported": ["code"],
            "response_types": ["code"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_client_authn_method": ["private_key_jwt"],
            "revocation_endpoint_client_authn_method": ["private_key_jwt"],
            "allowed_scopes": SCOPES,
        }
        with open(os.path.join(self.state_dir, "client-jwks.json")) as f:
            self.server.keyjar.import_jwks(json.load(f), CONFIDENTIAL_CLIENT_ID)

    # -- WSGI

    def __call__(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        headers = {
            key[5:].lower().replace("_", "-"): value for key, value in environ.items() if key.startswith("HTTP_")
        }
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length).decode("utf-8") if length else ""
        url = self.issuer + path + (f"?{query}" if query else "")
        http_info = {"headers": headers, "method": method, "url": url, "cookie": []}
        try:
            status, response_headers, payload = self.route(method, path, query, body, http_info)
        except Exception:
            log.exception("unexpected failure at %s %s", method, path)
            status, response_headers, payload = json_answer(500, {"error": "server_error"})
        start_response(status, response_headers)
        return [payload]

    def route(self, method, path, query, body, http_info):
        endpoints = self.server.endpoint
        if path == "/.well-known/openid-configuration" and method == "GET":
            return self.serve(endpoints["provider_config"], {}, http_info)
        if path == "/jwks" and method == "GET":
            return json_answer(200, self.server.keyjar.export_jwks(issuer_id=""))
        if path == "/authorization" and method == "GET":
            return self.authorize(query, http_info)
        if path == "/token" and method == "POST":
            return self.token(body, http_info)
        if path == "/userinfo" and method in ("GET", "POST"):
            return self.userinfo(body if method == "POST" else query, http_info)
        if path == "/registration" and method == "POST":
            return self.serve(endpoints["registration"], body, http_info, created=True)
        if path == "/registration_api" and method == "GET":
            return self.read_registration(query, http_info)
        if path == "/registration_api" and method == "DELETE":
            return self.delete_registration(query, http_info)
        if path == "/revocation" and method == "POST":
            return self.serve(endpoints["token_revocation"], body, http_info)
        return json_answer(404, {"error": "not_found"})

    def serve(self, endpoint, request, http_info, created=False, **process_args):
        parsed = parse(endpoint, request, http_info)
        if is_error(parsed):
            return json_answer(error_status(endpoint, parsed), parsed.to_dict())
        args = endpoint.process_request(parsed, http_info=http_info, **process_args)
        if is_error(args):
            return json_answer(error_status(endpoint, args), args.to_dict())
        if "error" in args:
            return json_answer(error_status(endpoint, args), {k: v for k, v in args.items() if k.startswith("error")})
        answer = endpoint.do_response(request=parsed, **args)
        payload = answer["response"]
        response_headers = [(k, v) for k, v in answer.get("http_headers", []) if k.lower() != "content-length"]
        if not any(k.lower() == "content-type" for k, _ in response_headers):
            response_headers.append(("Content-Type", "application/json"))
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        return (("201 Created" if created else "200 OK"), response_headers + no_store(), payload)

    # -- RFC 7592: the client configuration endpoint

    def read_registration(self, query, http_info):
        """RFC 7592 §2.1 through idpyoidc's read endpoint, with a refused token answered as
        RFC 7592 says (below)."""
        endpoint = self.server.endpoint["registration_read"]
        if self.registration_client(endpoint, query, http_info) is None:
            return registration_token_refused()
        return self.serve(endpoint, query, http_info)

    def delete_registration(self, query, http_info):
        """RFC 7592 §2.3: the registration access token deletes its client: 204, and from then on
        the client id, its grants' client and the token are unknown.

        idpyoidc 5.0.0 implements only the read of RFC 7592 (`RegistrationRead`, GET); a DELETE
        would be a 404. This front end deletes with idpyoidc's own check of the token (the read
        endpoint's Bearer authentication and its client id match)."""
        endpoint = self.server.endpoint["registration_read"]
        client_id = self.registration_client(endpoint, query, http_info)
        if client_id is None:
            return registration_token_refused()
        self.context.cdb.pop(client_id, None)
        tokens = self.context.registration_access_token
        for token in [token for token, owner in tokens.items() if owner == client_id]:
            del tokens[token]
        if client_id in self.server.keyjar:
            del self.server.keyjar[client_id]
        return "204 No Content", no_store(), b""

    def registration_client(self, endpoint, query, http_info):
        """The client id a registration access token may read or delete; None when it may not.

        idpyoidc 5.0.0 answers a refused registration access token as a failed client
        authentication (here 401 invalid_client). RFC 7592 §2.1 and §2.3 say an invalid token gets
        the RFC 6750 answer: 401 with `WWW-Authenticate: Bearer error="invalid_token"`."""
        parsed = parse(endpoint, query, http_info)
        if is_error(parsed):
            return None
        client_id = parsed.get("client_id")
        return client_id if client_id in self.context.cdb else None

    def authorize(self, query, http_info):
        request = dict(parse_qsl(query))
        user = http_info["headers"].get(USER_HEADER.lower()) or request.pop("test_user", None)
        if not user:
            return login_form(request)
        self.allow_loopback_port(request)
        endpoint = self.server.endpoint["authorization"]
        token = CURRENT_USER.set(user)
        try:
            parsed = endpoint.parse_request(request, http_info=http_info)
            if is_error(parsed):
                return self.authorization_error(request, parsed.to_dict())
            args = endpoint.process_request(parsed, http_info=http_info)
        finally:
            CURRENT_USER.reset(token)
        if "error" in args:
            return self.authorization_error(request, {k: v for k, v in args.items() if k.startswith("error")})
        answer = endpoint.do_response(request=parsed, **args)
        location = answer["response"]
        code = parse_qs(urlparse(location).query).get("code", [None])[0]
        if code and request.get("dpop_jkt"):
            # idpyoidc 5.0.0: it ignores the dpop_jkt authorization parameter (RFC 9449 §10); the
            # front end binds the code and checks the binding at the token endpoint.
            self.code_binding[code] = request["dpop_jkt"]
        return "302 Found", [("Location", location), ("Content-Length", "0")] + no_store(), b""

    def allow_loopback_port(self, request):
        """idpyoidc 5.0.0: it matches a redirect URI exactly, port included; RFC 8252 §7.3 says a
        loopback redirect URI matches with any port. A registered http://127.0.0.1/path lets the
        same URI with a port through, by registering that exact URI for the client."""
        uri = request.get("redirect_uri") or ""
        parts = urlparse(uri)
        if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "::1") or parts.port is None:
            return
        client = self.context.cdb.get(request.get("client_id") or "")
        if not client:
            return
        portless = urlunparse(parts._replace(netloc="[::1]" if parts.hostname == "::1" else parts.hostname))
        registered = [registered_uri for registered_uri, _ in client.get("redirect_uris", [])]
        if portless in registered and uri not in registered:
            client["redirect_uris"].append((uri, {}))

    def authorization_error(self, request, error):
        redirect = request.get("redirect_uri")
        client = self.context.cdb.get(request.get("client_id") or "", {})
        if redirect and any(uri == redirect for uri, _ in client.get("redirect_uris", [])):
            params = dict(error)
            if "state" in request:
                params["state"] = request["state"]
            return "302 Found", [("Location", add_query(redirect, params)), ("Content-Length", "0")], b""
        return json_answer(400, error)

    def token(self, body, http_info):
        endpoint = self.server.endpoint["token"]
        form = dict(parse_qsl(body))
        try:
            parsed = parse(endpoint, form, http_info)
        except DPoPRefused as refusal:
            return json_answer(400, {"error": "invalid_dpop_proof", "error_description": str(refusal)})
        if is_error(parsed):
            return json_answer(error_status(endpoint, parsed), token_error(parsed.to_dict()))
        jkt = parsed.get("dpop_jkt")
        grant_type = parsed.get("grant_type")
        if grant_type == "authorization_code":
            bound = self.code_binding.pop(form.get("code", ""), None)
            if bound and bound != jkt:
                return json_answer(400, {"error": "invalid_grant", "error_description": "the code is bound to another DPoP key"})
        elif grant_type == "refresh_token":
            bound = self.refresh_binding.get(form.get("refresh_token", ""))
            if bound and bound != jkt:
                # idpyoidc 5.0.0: a refresh with another key (or none) is accepted and rebinds the
                # grant to whatever key comes, so a copied refresh token works anywhere. RFC 9449
                # §5: a DPoP-bound refresh token is used only with a proof by its key.
                return json_answer(
                    400, {"error": "invalid_grant", "error_description": "the refresh token is bound to a DPoP key"})
            if jkt is None and self.grant_is_bound(form.get("refresh_token", "")):
                return json_answer(
                    400, {"error": "invalid_grant", "error_description": "the refresh token is bound to a DPoP key"})
        # idpyoidc 5.0.0: it issues refresh tokens only for offline_access; these clients always get one.
        args = endpoint.process_request(parsed, http_info=http_info, issue_refresh=True)
        if is_error(args):
            return json_answer(error_status(endpoint, args), token_error(args.to_dict()))
        if "error" in args:
            return json_answer(400, token_error({k: v for k, v in args.items() if k.startswith("error")}))
        answer = endpoint.do_response(request=parsed, **args)
        payload = answer["response"]
        issued = json.loads(payload)
        if jkt and issued.get("refresh_token"):
            self.refresh_binding[issued["refresh_token"]] = jkt
        elif grant_type == "refresh_token" and issued.get("refresh_token"):
            # A bearer grant stays bearer.
            self.refresh_binding.pop(issued["refresh_token"], None)
        return "200 OK", [("Content-Type", "application/json")] + no_store(), payload.encode("utf-8")

    def grant_is_bound(self, refresh_token):
        try:
            info = self.context.session_manager.get_session_info_by_token(
                refresh_token, handler_key="refresh_token", grant=True)
        except Exception:
            return False
        return bool(info["grant"].extra.get("dpop_jkt"))

    def userinfo(self, request, http_info):
        endpoint = self.server.endpoint["userinfo"]
        authorization = http_info["headers"].get("authorization", "")
        scheme = authorization.split(" ", 1)[0].lower() if authorization else ""
        if scheme == "dpop" and "dpop" not in http_info["headers"]:
            return dpop_challenge("invalid_dpop_proof", "a DPoP access token needs a DPoP proof")
        if scheme == "bearer" and bound_jkt_of_access_token(authorization.split(" ", 1)[1].strip()):
            # idpyoidc 5.0.0: a DPoP-bound access token is accepted as a Bearer token, without a
            # proof (RFC 9449 §7.1 says the resource refuses it).
            return dpop_challenge("invalid_token", "the access token is bound to a DPoP key")
        try:
            parsed = parse(endpoint, request, http_info)
        except DPoPRefused as refusal:
            return dpop_challenge("invalid_dpop_proof", str(refusal))
        if is_error(parsed):
            status = 401 if parsed.get("error") in ("invalid_token", "invalid_client", "unauthorized_client") else 400
            return bearer_challenge(status, parsed.get("error", "invalid_token"))
        args = endpoint.process_request(parsed, http_info=http_info)
        if "error" in args:
            return bearer_challenge(401, args.get("error", "invalid_token"))
        answer = endpoint.do_response(request=parsed, **args)
        payload = answer["response"]
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        return "200 OK", [("Content-Type", "application/json")] + no_store(), payload


def parse(endpoint, request, http_info):
    """`endpoint.parse_request`, with a failed client authentication as the error it is.

    idpyoidc 5.0.0: it raises UnAuthorizedClient (or another ClientAuthenticationError) out of
    parse_request when a client fails to authenticate; RFC 6749 §5.2 answers invalid_client (401).
    """
    from idpyoidc.message.oauth2 import ResponseMessage
    from idpyoidc.server.exception import ClientAuthenticationError, UnAuthorizedClient, UnknownClient

    try:
        return endpoint.parse_request(request, http_info=http_info)
    except (UnAuthorizedClient, ClientAuthenticationError, UnknownClient):
        return ResponseMessage(error="invalid_client", error_description="client authentication failed")


def is_error(message):
    from idpyoidc.message.oauth2 import ResponseMessage

    return isinstance(message, ResponseMessage) and "error" in message


def token_error(error):
    # idpyoidc 5.0.0: it answers a dead or retired refresh token with invalid_request; RFC 6749 §5.2
    # names invalid_grant for it.
    if error.get("error") == "invalid_request" and "inactive" in (error.get("error_description") or "").lower():
        error = dict(error, error="invalid_grant")
    return error


def error_status(endpoint, error):
    if error.get("error") in ("invalid_client", "unauthorized_client"):
        return 401
    return 400


def no_store():
    return [("Cache-Control", "no-store"), ("Pragma", "no-cache")]


def json_answer(status, body):
    reason = {200: "OK", 201: "Created", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 500: "Internal Server Error"}
    return f"{status} {reason.get(status, 'Error')}", [("Content-Type", "application/json")] + no_store(), json.dumps(body).encode("utf-8")


def login_form(request):
    """A page for a person: one user name field; the request goes on as it came."""
    from html import escape

    hidden = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in request.items())
    page = (
        "<!doctype html><title>Sign in (local test provider)</title>"
        "<form method=get action=/authorization>"
        "<p>Local test provider: any user name signs in, without a password.</p>"
        f"{hidden}<label>User name <input name=test_user value=test-user autofocus></label> "
        "<button>Sign in</button></form>"
    )
    return "200 OK", [("Content-Type", "text/html; charset=utf-8")] + no_store(), page.encode("utf-8")


def dpop_challenge(error, description):
    status, headers, body = json_answer(401, {"error": error, "error_description": description})
    headers.append(("WWW-Authenticate", f'DPoP error="{error}", algs="ES256 RS256"'))
    return status, headers, body


def bearer_challenge(status, error):
    status_line, headers, body = json_answer(status, {"error": error})
    headers.append(("WWW-Authenticate", f'Bearer error="{error}"'))
    return status_line, headers, body


def registration_token_refused():
    """RFC 7592 §2.1 / RFC 6750 §3.1: an invalid registration access token, or one whose client is
    gone (RFC 7592 §2.1 answers a deleted client's token as invalid)."""
    return bearer_challenge(401, "invalid_token")


def add_query(uri, params):
    parts = urlparse(uri)
    query = parts.query + ("&" if parts.query else "") + urlencode(params)
    return urlunparse(parts._replace(query=query))


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        # The request line only: a query may hold a code, never logged.
        sys.stderr.write("%s %s\n" % (self.command, self.path.split("?")[0]))


def serve(state_dir, port):
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    issuer = f"http://127.0.0.1:{port}"
    app = FrontEnd(state_dir, issuer)
    httpd = make_server("127.0.0.1", port, app, server_class=WSGIServer, handler_class=QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sys.stderr.write(f"idp_server: serving {issuer}\n")
    sys.stderr.flush()
    httpd.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "setup":
        setup(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
