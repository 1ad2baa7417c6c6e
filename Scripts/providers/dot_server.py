"""A local django-oauth-toolkit OpenID provider for SessionKit's integration tests.

One file is the Django settings module, the URL configuration and the command line:

    python dot_server.py setup          # migrate, upsert the test user and public client
    python dot_server.py runserver --noreload 127.0.0.1:PORT

State lives in SESSIONKIT_DOT_STATE (a directory): the SQLite database and the RS256 signing
keys (signing-key.pem is active; inactive-keys/*.pem are still published in the JWKS so that
tokens signed before a rotation keep verifying).

Behaviour the tests rely on:
- PKCE S256 is required; refresh tokens rotate; replaying a rotated refresh token revokes the
  whole chain (REFRESH_TOKEN_REUSE_PROTECTION) and answers invalid_grant.
- RFC 7009 revocation is at /o/revoke_token/ (the discovery document does not list it).
- The authorization endpoint completes without a login page when the request carries the
  header X-Test-User: <username> (the user is created on first use; `sub` is the numeric id).
  Without the header, the Django session cookie of an earlier request signs in silently.
- POST /test/rotate-signing-key makes a fresh key active and keeps the old one published;
  with ?retire_previous=1 no earlier key stays published.
- RP-initiated logout is on at /o/logout/ (listed as end_session_endpoint), without a
  confirmation page; the registered post-logout redirect URIs are com.example.app:/logged-out
  and http://127.0.0.1/logged-out (any port on loopback).
- The device authorization grant (RFC 8628) is at /o/device-authorization/ (not listed in the
  discovery document), for the second public client SESSIONKIT_DOT_DEVICE_CLIENT_ID; a person
  approves by POSTing user_code to /o/device/ and action=accept to the confirm page it redirects
  to, with the X-Test-User header. The polling interval is SESSIONKIT_DOT_DEVICE_INTERVAL
  seconds (default 1, so the tests run quickly). SESSIONKIT_DOT_BASE_URL
  (http://127.0.0.1:PORT) makes the verification URIs absolute.
"""

import json
import os
import pathlib
import sys

STATE = pathlib.Path(os.environ.get("SESSIONKIT_DOT_STATE", pathlib.Path(__file__).resolve().parent / ".state"))
KEY_FILE = STATE / "signing-key.pem"
INACTIVE_KEYS = STATE / "inactive-keys"
CLIENT_ID = os.environ.get("SESSIONKIT_DOT_CLIENT_ID", "sessionkit-dot")
DEVICE_CLIENT_ID = os.environ.get("SESSIONKIT_DOT_DEVICE_CLIENT_ID", "sessionkit-dot-device")
CONFIDENTIAL_CLIENT_ID = os.environ.get("SESSIONKIT_DOT_CONFIDENTIAL_CLIENT_ID", "sessionkit-dot-confidential")
CONFIDENTIAL_SECRET = os.environ.get("SESSIONKIT_DOT_CONFIDENTIAL_SECRET", "local test secret/+:%")
POST_LOGOUT_REDIRECT_URIS = os.environ.get(
    "SESSIONKIT_DOT_POST_LOGOUT_REDIRECT_URIS", "com.example.app:/logged-out http://127.0.0.1/logged-out"
)
BASE_URL = os.environ.get("SESSIONKIT_DOT_BASE_URL", "http://127.0.0.1:8000")
REDIRECT_URIS = os.environ.get(
    "SESSIONKIT_DOT_REDIRECT_URIS", "com.example.app:/callback http://127.0.0.1/callback"
)
USER_HEADER = "X-Test-User"


def _read_keys():
    active = KEY_FILE.read_text() if KEY_FILE.exists() else ""
    inactive = [p.read_text() for p in sorted(INACTIVE_KEYS.glob("*.pem"))] if INACTIVE_KEYS.exists() else []
    return active, inactive


_ACTIVE_KEY, _INACTIVE_KEYS = _read_keys()

# --- Django settings -------------------------------------------------------------------------

DEBUG = False
SECRET_KEY = "sessionkit-local-test-provider-not-a-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
ROOT_URLCONF = __name__
USE_TZ = True
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    f"{__name__}.TestUserHeaderMiddleware",
]
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.RemoteUserBackend"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(STATE / "db.sqlite3"),
        # The dev server is threaded; wait for a writer instead of failing with "locked".
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"oauth2_provider": {"handlers": ["console"], "level": "INFO"}},
}

_SCHEMES = ["http", "https", "com.example.app"]
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _ACTIVE_KEY,
    "OIDC_RSA_PRIVATE_KEYS_INACTIVE": _INACTIVE_KEYS,
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "ALLOWED_REDIRECT_URI_SCHEMES": _SCHEMES,
    "ALLOWED_SCHEMES": _SCHEMES,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Basic profile",
        "email": "Email address",
    },
    "DEFAULT_SCOPES": ["openid"],
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    # With a valid id_token_hint for the signed-in user, log out and redirect without asking.
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    "DEVICE_FLOW_INTERVAL": int(os.environ.get("SESSIONKIT_DOT_DEVICE_INTERVAL", "1")),
    "OAUTH_DEVICE_VERIFICATION_URI": BASE_URL + "/o/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": BASE_URL + "/o/device/?user_code={user_code}",
}

# --- Middleware and views --------------------------------------------------------------------

def _test_user_header_middleware():
    from django.contrib.auth.middleware import RemoteUserMiddleware

    class TestUserHeaderMiddleware(RemoteUserMiddleware):
        """Signs the request in as the user named in X-Test-User, creating that user if needed.

        A request without the header keeps the session its cookie names, as a browser that signed
        in once keeps its provider session: that is the single sign-on RP-initiated logout ends.
        """

        header = "HTTP_" + USER_HEADER.upper().replace("-", "_")
        force_logout_if_no_header = False

    return TestUserHeaderMiddleware


def rotate_signing_key(request):
    from django.http import HttpResponseNotAllowed, JsonResponse
    from oauth2_provider.settings import oauth2_settings
    from oauth2_provider.utils import jwk_from_pem

    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    old = KEY_FILE.read_text()
    INACTIVE_KEYS.mkdir(parents=True, exist_ok=True)
    if request.GET.get("retire_previous") == "1":
        # Unpublish every earlier key: tokens signed before now no longer verify.
        for pem in INACTIVE_KEYS.glob("*.pem"):
            pem.unlink()
    else:
        # Keep the three most recent earlier keys, so repeated test runs do not grow the JWKS.
        earlier = sorted(INACTIVE_KEYS.glob("*.pem"))
        serial = int(earlier[-1].stem) + 1 if earlier else 0
        (INACTIVE_KEYS / f"{serial:06d}.pem").write_text(old)
        for pem in earlier[:-2]:
            pem.unlink()
    new = generate_key_pem()
    KEY_FILE.write_text(new)
    active, inactive = _read_keys()
    OAUTH2_PROVIDER["OIDC_RSA_PRIVATE_KEY"] = active
    OAUTH2_PROVIDER["OIDC_RSA_PRIVATE_KEYS_INACTIVE"] = inactive
    oauth2_settings.reload()
    return JsonResponse(
        {
            "active_kid": jwk_from_pem(active).thumbprint(),
            "inactive_kids": [jwk_from_pem(pem).thumbprint() for pem in inactive],
        }
    )


def generate_key_pem():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _urlpatterns():
    from django.urls import include, path
    from django.views.decorators.csrf import csrf_exempt

    return [
        path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
        path("test/rotate-signing-key", csrf_exempt(rotate_signing_key)),
    ]


def __getattr__(name):
    # Django reads the URL patterns and the middleware after setup; building them lazily keeps
    # this module importable as a settings module before the app registry is ready.
    if name == "urlpatterns":
        return _urlpatterns()
    if name == "TestUserHeaderMiddleware":
        return _test_user_header_middleware()
    raise AttributeError(name)


# --- Command line ----------------------------------------------------------------------------


def setup():
    """Creates the state directory, key, schema, and the public test client (idempotent)."""
    STATE.mkdir(parents=True, exist_ok=True)
    if not KEY_FILE.exists():
        KEY_FILE.write_text(generate_key_pem())
        OAUTH2_PROVIDER["OIDC_RSA_PRIVATE_KEY"] = KEY_FILE.read_text()

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)

    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    app, _ = Application.objects.update_or_create(
        client_id=CLIENT_ID,
        defaults={
            "name": "SessionKit integration tests",
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT_URIS,
            "post_logout_redirect_uris": POST_LOGOUT_REDIRECT_URIS,
            "skip_authorization": True,
            "algorithm": Application.RS256_ALGORITHM,
            "client_secret": "",
            "hash_client_secret": False,
        },
    )
    app.full_clean()
    device, _ = Application.objects.update_or_create(
        client_id=DEVICE_CLIENT_ID,
        defaults={
            "name": "SessionKit integration tests (device sign-in)",
            "client_type": Application.CLIENT_PUBLIC,
            "authorization_grant_type": Application.GRANT_DEVICE_CODE,
            "redirect_uris": "",
            "skip_authorization": True,
            "algorithm": Application.RS256_ALGORITHM,
            "client_secret": "",
            "hash_client_secret": False,
        },
    )
    device.full_clean()
    confidential, _ = Application.objects.update_or_create(
        client_id=CONFIDENTIAL_CLIENT_ID,
        defaults={
            "name": "SessionKit integration tests (confidential client)",
            "client_type": Application.CLIENT_CONFIDENTIAL,
            "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
            "redirect_uris": REDIRECT_URIS,
            "post_logout_redirect_uris": POST_LOGOUT_REDIRECT_URIS,
            "skip_authorization": True,
            "algorithm": Application.RS256_ALGORITHM,
            "client_secret": CONFIDENTIAL_SECRET,
            "hash_client_secret": True,
        },
    )
    confidential.full_clean()
    print(
        json.dumps(
            {
                "client_id": app.client_id,
                "redirect_uris": app.redirect_uris.split(),
                "post_logout_redirect_uris": app.post_logout_redirect_uris.split(),
                "device_client_id": device.client_id,
                "confidential_client_id": confidential.client_id,
            }
        )
    )


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dot_server")
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    if sys.argv[1:2] == ["setup"]:
        os.environ["DJANGO_SETTINGS_MODULE"] = "dot_server"
        import dot_server

        dot_server.setup()
    else:
        from django.core.management import execute_from_command_line

        execute_from_command_line(sys.argv)
