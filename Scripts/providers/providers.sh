#!/usr/bin/env bash
# Local OpenID providers for SessionKit's integration tests, on 127.0.0.1 only.
#
#   providers.sh install          venvs + packages + DOT database/key/client (idempotent)
#   providers.sh start            install if needed, start all three, wait for discovery
#   providers.sh stop             stop all three (only the processes this script started)
#   providers.sh env              print `export` lines for the integration tests
#   providers.sh status           say what runs where
#   providers.sh rotate-dot-key   make a new signing key active at the DOT provider
#
# Everything lives under $SESSIONKIT_PROVIDERS_DIR (default: <repo>/.providers, git-ignored):
#   dot-venv/, mock-venv/, idp-venv/   virtual environments
#   dot/                     DOT state: db.sqlite3, signing-key.pem, inactive-keys/
#   idp/                     idpyoidc state: the provider's keys, the confidential client's
#                            private keys (client-rs256.pem PKCS#8, client-es256.pem SEC 1)
#   {dot,mock,idp}.{pid,port,log}
#
# Python: DOT and idpyoidc run on 3.11 (SESSIONKIT_PYTHON_DOT, SESSIONKIT_PYTHON_IDP override),
# oidc-provider-mock on >= 3.12 (SESSIONKIT_PYTHON_MOCK overrides); all are searched on PATH, in
# pyenv and in /usr.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
STATE_DIR=${SESSIONKIT_PROVIDERS_DIR:-$REPO_ROOT/.providers}

# oauthlib 4 adds `scope` to the device authorization response, which django-oauth-toolkit 3.4.1
# cannot store (its device endpoint answers 500): stay on 3.x.
DOT_SPEC=("django-oauth-toolkit>=3.4,<3.5" "Django>=5.2,<5.3" "oauthlib>=3.3,<4")
MOCK_SPEC=("oidc-provider-mock==0.4.8")
DOT_CLIENT_ID=sessionkit-dot
DOT_REDIRECT_URI="com.example.app:/callback"
DOT_REDIRECT_URIS="com.example.app:/callback http://127.0.0.1/callback"
DOT_DEVICE_CLIENT_ID=sessionkit-dot-device
# A confidential client (client_secret_basic and client_secret_post). The secret guards nothing
# but a loopback test provider; its space, slash, plus, colon and percent sign check the RFC 6749
# §2.3.1 form-encoding of HTTP Basic credentials.
DOT_CONFIDENTIAL_CLIENT_ID=sessionkit-dot-confidential
DOT_CONFIDENTIAL_SECRET="local test secret/+:%"
DOT_POST_LOGOUT_REDIRECT_URI="com.example.app:/logged-out"
# idpyoidc 5.0.0 behind a front end of ours (idp_server.py: wsgiref, no other dependency), with
# DPoP, private_key_jwt and dynamic registration; its deviations are worked around there.
IDP_SPEC=("idpyoidc==5.0.0")
IDP_CLIENT_ID=sessionkit-idp
IDP_CONFIDENTIAL_CLIENT_ID=sessionkit-idp-confidential
IDP_REDIRECT_URI="com.example.app:/callback"
MOCK_CLIENT_ID=sessionkit-mock
# The mock accepts any client id and any redirect URI while client registration is not required
# (its registration endpoint, unused here, would accept only http(s) redirect URIs).
MOCK_REDIRECT_URI="com.example.app:/callback"
START_TIMEOUT_SECONDS=${SESSIONKIT_PROVIDERS_START_TIMEOUT:-60}

log() { printf '%s\n' "providers: $*" >&2; }
die() { log "$*"; exit 1; }

# Prints the first interpreter among the arguments that runs and reports a version within
# [min, max] (as "3.N" minor numbers).
first_python() {
    local min=$1 max=$2 candidate version
    shift 2
    for candidate in "$@"; do
        [[ -n $candidate ]] || continue
        command -v "$candidate" >/dev/null 2>&1 || [[ -x $candidate ]] || continue
        version=$("$candidate" -c 'import sys; print(sys.version_info[1] if sys.version_info[0] == 3 else 0)' 2>/dev/null) || continue
        if ((version >= min && version <= max)); then
            # The real interpreter, not a pyenv shim whose choice depends on the directory.
            "$candidate" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

pyenv_pythons() {
    local minor=$1 root
    root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
    # Newest patch release first.
    ls -d "$root"/versions/3."$minor".*/bin/python3."$minor" 2>/dev/null | sort -V -r || true
}

python_for_dot() {
    # Django 5.2 supports 3.10-3.13; 3.11 is what the notes measured.
    first_python 11 13 "${SESSIONKIT_PYTHON_DOT:-}" python3.11 /usr/bin/python3.11 /usr/local/bin/python3.11 \
        $(pyenv_pythons 11) python3.12 $(pyenv_pythons 12) python3.13 $(pyenv_pythons 13) python3 ||
        die "no Python 3.11-3.13 found for django-oauth-toolkit (set SESSIONKIT_PYTHON_DOT)"
}

python_for_idp() {
    # idpyoidc 5.0.0 was measured on 3.11.
    first_python 11 13 "${SESSIONKIT_PYTHON_IDP:-}" python3.11 /usr/bin/python3.11 /usr/local/bin/python3.11 \
        $(pyenv_pythons 11) python3.12 $(pyenv_pythons 12) python3.13 $(pyenv_pythons 13) python3 ||
        die "no Python 3.11-3.13 found for idpyoidc (set SESSIONKIT_PYTHON_IDP)"
}

python_for_mock() {
    # oidc-provider-mock 0.4.x needs >= 3.12; under 3.11 pip silently picks 0.3.4.
    first_python 12 14 "${SESSIONKIT_PYTHON_MOCK:-}" python3.12 /usr/bin/python3.12 /usr/local/bin/python3.12 \
        $(pyenv_pythons 12) python3.13 /usr/bin/python3.13 $(pyenv_pythons 13) python3.14 $(pyenv_pythons 14) python3 ||
        die "no Python >= 3.12 found for oidc-provider-mock (set SESSIONKIT_PYTHON_MOCK)"
}

# ensure_venv NAME PYTHON SPEC... — creates or reuses $STATE_DIR/NAME-venv; the stamp records
# the interpreter and the requirement list so a change to either reinstalls.
ensure_venv() {
    local name=$1 python=$2
    shift 2
    local venv="$STATE_DIR/$name-venv" stamp want
    stamp="$venv/.sessionkit-stamp"
    want="$("$python" -c 'import sys; print(sys.version.split()[0])') $*"
    if [[ -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "$want" ]] && "$venv/bin/python" -c '' 2>/dev/null; then
        return 0
    fi
    log "installing $name into $venv with $python ($*)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "$@"
    printf '%s' "$want" >"$stamp"
}

dot_env() {
    export SESSIONKIT_DOT_STATE="$STATE_DIR/dot"
    export SESSIONKIT_DOT_CLIENT_ID="$DOT_CLIENT_ID"
    export SESSIONKIT_DOT_REDIRECT_URIS="$DOT_REDIRECT_URIS"
    export SESSIONKIT_DOT_DEVICE_CLIENT_ID="$DOT_DEVICE_CLIENT_ID"
    export SESSIONKIT_DOT_CONFIDENTIAL_CLIENT_ID="$DOT_CONFIDENTIAL_CLIENT_ID"
    export SESSIONKIT_DOT_CONFIDENTIAL_SECRET="$DOT_CONFIDENTIAL_SECRET"
    export PYTHONPATH="$SCRIPT_DIR"
    export DJANGO_SETTINGS_MODULE=dot_server
}

cmd_install() {
    mkdir -p "$STATE_DIR"
    ensure_venv dot "$(python_for_dot)" "${DOT_SPEC[@]}"
    ensure_venv mock "$(python_for_mock)" "${MOCK_SPEC[@]}"
    ensure_venv idp "$(python_for_idp)" "${IDP_SPEC[@]}"
    (dot_env && "$STATE_DIR/dot-venv/bin/python" "$SCRIPT_DIR/dot_server.py" setup >/dev/null)
    # The confidential client's key pairs (kept across runs; the provider reads the public halves).
    "$STATE_DIR/idp-venv/bin/python" "$SCRIPT_DIR/idp_server.py" setup "$STATE_DIR/idp"
    log "installed: $("$STATE_DIR/dot-venv/bin/python" -m pip show django-oauth-toolkit 2>/dev/null | sed -n 's/^Version: /django-oauth-toolkit /p')," \
        "$("$STATE_DIR/mock-venv/bin/python" -m pip show oidc-provider-mock 2>/dev/null | sed -n 's/^Version: /oidc-provider-mock /p')," \
        "$("$STATE_DIR/idp-venv/bin/python" -m pip show idpyoidc 2>/dev/null | sed -n 's/^Version: /idpyoidc /p')"
}

free_port() {
    "$STATE_DIR/dot-venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A pid file is trusted only while that process is alive and is the server it names, so a
# recycled pid is never signalled.
running_pid() {
    local name=$1 marker=$2 pid
    [[ -f $STATE_DIR/$name.pid ]] || return 1
    pid=$(cat "$STATE_DIR/$name.pid")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$marker" || return 1
    printf '%s\n' "$pid"
}

discovery_url() {
    case $1 in
    dot) printf 'http://127.0.0.1:%s/o/.well-known/openid-configuration' "$2" ;;
    mock) printf 'http://127.0.0.1:%s/.well-known/openid-configuration' "$2" ;;
    idp) printf 'http://127.0.0.1:%s/.well-known/openid-configuration' "$2" ;;
    esac
}

marker_for() {
    case $1 in
    dot) printf 'dot_server' ;;
    mock) printf 'oidc_provider_mock' ;;
    idp) printf 'idp_server.py' ;;
    esac
}

launch() {
    local name=$1 port=$2
    case $name in
    dot)
        (dot_env && export SESSIONKIT_DOT_BASE_URL="http://127.0.0.1:$port" && cd "$SCRIPT_DIR" &&
            exec "$STATE_DIR/dot-venv/bin/python" "$SCRIPT_DIR/dot_server.py" runserver --noreload "127.0.0.1:$port") \
            >>"$STATE_DIR/dot.log" 2>&1 </dev/null &
        ;;
    mock)
        (exec "$STATE_DIR/mock-venv/bin/python" -m oidc_provider_mock --host 127.0.0.1 --port "$port") \
            >>"$STATE_DIR/mock.log" 2>&1 </dev/null &
        ;;
    idp)
        (exec "$STATE_DIR/idp-venv/bin/python" "$SCRIPT_DIR/idp_server.py" serve "$STATE_DIR/idp" "$port") \
            >>"$STATE_DIR/idp.log" 2>&1 </dev/null &
        ;;
    esac
    echo $! >"$STATE_DIR/$name.pid"
    echo "$port" >"$STATE_DIR/$name.port"
}

# start_one NAME — starts it on a free port unless it already runs, and waits until its
# discovery document answers. A port taken between choosing and binding is retried.
start_one() {
    local name=$1 marker pid port attempt started deadline
    marker=$(marker_for "$name")
    if pid=$(running_pid "$name" "$marker"); then
        port=$(cat "$STATE_DIR/$name.port")
        if curl -sf -o /dev/null "$(discovery_url "$name" "$port")"; then
            log "$name already running (pid $pid, port $port)"
            return 0
        fi
    fi
    for attempt in 1 2 3; do
        port=$(free_port)
        started=$(date +%s.%N)
        launch "$name" "$port"
        pid=$(cat "$STATE_DIR/$name.pid")
        deadline=$((SECONDS + START_TIMEOUT_SECONDS))
        while ((SECONDS < deadline)); do
            if curl -sf -o /dev/null "$(discovery_url "$name" "$port")"; then
                log "$name ready on 127.0.0.1:$port (pid $pid) after $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
                return 0
            fi
            [[ -d /proc/$pid ]] || break
            sleep 0.1
        done
        if [[ -d /proc/$pid ]]; then
            kill "$pid" 2>/dev/null || true
        fi
        rm -f "$STATE_DIR/$name.pid" "$STATE_DIR/$name.port"
        log "$name did not come up on port $port (attempt $attempt); last log lines:"
        tail -n 15 "$STATE_DIR/$name.log" >&2 || true
    done
    die "$name failed to start"
}

stop_one() {
    local name=$1 pid
    if pid=$(running_pid "$name" "$(marker_for "$name")"); then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            [[ -d /proc/$pid ]] || break
            sleep 0.1
        done
        if [[ -d /proc/$pid ]]; then
            log "$name (pid $pid) ignored TERM; sending KILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        log "$name stopped (pid $pid)"
    fi
    rm -f "$STATE_DIR/$name.pid" "$STATE_DIR/$name.port"
}

require_port() {
    local name=$1
    running_pid "$name" "$(marker_for "$name")" >/dev/null || die "$name is not running (run: $0 start)"
    cat "$STATE_DIR/$name.port"
}

cmd_start() {
    cmd_install
    start_one dot
    start_one mock
    start_one idp
}

cmd_stop() {
    stop_one dot
    stop_one mock
    stop_one idp
}

cmd_env() {
    local dot mock idp
    dot=$(require_port dot)
    mock=$(require_port mock)
    idp=$(require_port idp)
    cat <<EOF
export SESSIONKIT_DOT_ISSUER=http://127.0.0.1:$dot/o
export SESSIONKIT_DOT_CLIENT_ID=$DOT_CLIENT_ID
export SESSIONKIT_DOT_REDIRECT_URI=$DOT_REDIRECT_URI
export SESSIONKIT_DOT_REVOCATION_ENDPOINT=http://127.0.0.1:$dot/o/revoke_token/
export SESSIONKIT_DOT_USER_HEADER=X-Test-User
export SESSIONKIT_DOT_ROTATE_KEY_URL=http://127.0.0.1:$dot/test/rotate-signing-key
export SESSIONKIT_DOT_DEVICE_CLIENT_ID=$DOT_DEVICE_CLIENT_ID
export SESSIONKIT_DOT_DEVICE_AUTHORIZATION_ENDPOINT=http://127.0.0.1:$dot/o/device-authorization/
export SESSIONKIT_DOT_POST_LOGOUT_REDIRECT_URI=$DOT_POST_LOGOUT_REDIRECT_URI
export SESSIONKIT_DOT_CONFIDENTIAL_CLIENT_ID=$DOT_CONFIDENTIAL_CLIENT_ID
export SESSIONKIT_DOT_CONFIDENTIAL_SECRET=$(printf '%q' "$DOT_CONFIDENTIAL_SECRET")
export SESSIONKIT_MOCK_ISSUER=http://127.0.0.1:$mock
export SESSIONKIT_MOCK_CLIENT_ID=$MOCK_CLIENT_ID
export SESSIONKIT_MOCK_REDIRECT_URI=$MOCK_REDIRECT_URI
export SESSIONKIT_MOCK_USERS_URL=http://127.0.0.1:$mock/users
export SESSIONKIT_IDP_ISSUER=http://127.0.0.1:$idp
export SESSIONKIT_IDP_CLIENT_ID=$IDP_CLIENT_ID
export SESSIONKIT_IDP_REDIRECT_URI=$IDP_REDIRECT_URI
export SESSIONKIT_IDP_USER_HEADER=X-Test-User
export SESSIONKIT_IDP_REGISTRATION_ENDPOINT=http://127.0.0.1:$idp/registration
export SESSIONKIT_IDP_CONFIDENTIAL_CLIENT_ID=$IDP_CONFIDENTIAL_CLIENT_ID
export SESSIONKIT_IDP_CLIENT_KEY_FILE=$STATE_DIR/idp/client-rs256.pem
export SESSIONKIT_IDP_CLIENT_KEY_ID=client-rs256
export SESSIONKIT_IDP_CLIENT_EC_KEY_FILE=$STATE_DIR/idp/client-es256.pem
export SESSIONKIT_IDP_CLIENT_EC_KEY_ID=client-es256
EOF
}

cmd_status() {
    local name pid
    for name in dot mock idp; do
        if pid=$(running_pid "$name" "$(marker_for "$name")"); then
            echo "$name: running, pid $pid, http://127.0.0.1:$(cat "$STATE_DIR/$name.port")"
        else
            echo "$name: stopped"
        fi
    done
}

cmd_rotate_dot_key() {
    local dot
    dot=$(require_port dot)
    curl -sf -X POST "http://127.0.0.1:$dot/test/rotate-signing-key"
    echo
}

case ${1:-} in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
env) cmd_env ;;
status) cmd_status ;;
rotate-dot-key) cmd_rotate_dot_key ;;
*)
    echo "usage: $0 {install|start|stop|env|status|rotate-dot-key}" >&2
    exit 2
    ;;
esac
