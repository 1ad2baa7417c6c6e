#!/usr/bin/env bash
# Proves the local providers do what the integration tests expect, with curl alone:
# authorize without a browser -> code -> PKCE token exchange -> refresh -> revoke.
#
#   Scripts/providers/smoke.sh          starts the providers if needed (and stops only what it started)
#
# Tokens and codes are never printed; each check prints its name and how long it took.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROVIDERS="$SCRIPT_DIR/providers.sh"
for tool in curl jq openssl; do
    command -v "$tool" >/dev/null || { echo "smoke: $tool is required" >&2; exit 1; }
done

started_here=false
if ! bash "$PROVIDERS" env >/dev/null 2>&1; then
    bash "$PROVIDERS" start
    started_here=true
fi
cleanup() {
    rm -rf "$WORK"
    if $started_here; then bash "$PROVIDERS" stop; fi
}
WORK=$(mktemp -d)
trap cleanup EXIT
eval "$(bash "$PROVIDERS" env)"

passed=0
failed=0
now_ms() { date +%s%3N; }
STEP_NAME=""
STEP_START=0
step() {
    STEP_NAME=$1
    STEP_START=$(now_ms)
}
ok() {
    passed=$((passed + 1))
    printf '  ok    %-66s %5d ms\n' "$STEP_NAME" $(($(now_ms) - STEP_START))
}
fail() {
    failed=$((failed + 1))
    printf '  FAIL  %-66s (%s)\n' "$STEP_NAME" "$1"
}
check() { # check DESCRIPTION ACTUAL EXPECTED
    if [[ $2 == "$3" ]]; then ok; else fail "$1: got '$2', expected '$3'"; fi
}

# post URL OUT [curl args...] -> prints the status code; the body goes to OUT.
post() {
    local url=$1 out=$2
    shift 2
    curl -sS -o "$out" -w '%{http_code}' -X POST "$url" "$@"
}
json() { jq -r "$2 // empty" "$1"; }
claims() { # claims JWT -> JSON payload
    local part
    part=$(cut -d. -f2 <<<"$1" | tr '_-' '/+')
    while ((${#part} % 4)); do part+="="; done
    base64 -d <<<"$part"
}
jose_header() { # jose_header JWT -> JSON header
    local part
    part=$(cut -d. -f1 <<<"$1" | tr '_-' '/+')
    while ((${#part} % 4)); do part+="="; done
    base64 -d <<<"$part"
}
header_kid() { jose_header "$1" | jq -r .kid; }
query_param() { # query_param URL NAME -> percent-decoded value
    local value
    value=$(sed -n "s/.*[?&]$2=\([^&#]*\).*/\1/p" <<<"$1")
    printf '%b' "${value//%/\\x}"
}
new_pkce() {
    VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
    CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
}
urlencode() { jq -rn --arg v "$1" '$v | @uri'; }

# authorize_url AUTHORIZE_ENDPOINT CLIENT_ID REDIRECT_URI STATE NONCE
authorize_url() {
    printf '%s?response_type=code&client_id=%s&redirect_uri=%s&scope=%s&state=%s&nonce=%s&code_challenge=%s&code_challenge_method=S256' \
        "$1" "$(urlencode "$2")" "$(urlencode "$3")" "$(urlencode "openid profile email")" "$4" "$5" "$CHALLENGE"
}
location_of() { grep -i '^location:' "$1" | head -1 | cut -d' ' -f2- | tr -d '\r'; }

# ---------------------------------------------------------------------------------------------
echo "django-oauth-toolkit at $SESSIONKIT_DOT_ISSUER"
DOT_CONFIG="$WORK/dot-config.json"

step "discovery answers and its issuer equals the configured one"
curl -sSf -o "$DOT_CONFIG" "$SESSIONKIT_DOT_ISSUER/.well-known/openid-configuration"
check issuer "$(json "$DOT_CONFIG" .issuer)" "$SESSIONKIT_DOT_ISSUER"
DOT_AUTHORIZE=$(json "$DOT_CONFIG" .authorization_endpoint)
DOT_TOKEN=$(json "$DOT_CONFIG" .token_endpoint)
DOT_USERINFO=$(json "$DOT_CONFIG" .userinfo_endpoint)
DOT_JWKS=$(json "$DOT_CONFIG" .jwks_uri)

step "discovery omits the revocation endpoint (it must be configured)"
check revocation_endpoint "$(json "$DOT_CONFIG" .revocation_endpoint)" ""

# dot_sign_in USER -> sets LOCATION, STATE, NONCE, CODE and a fresh VERIFIER
dot_sign_in() {
    new_pkce
    STATE=$(openssl rand -hex 8)
    NONCE=$(openssl rand -hex 8)
    curl -sS -o /dev/null -D "$WORK/h" -H "$SESSIONKIT_DOT_USER_HEADER: $1" \
        "$(authorize_url "$DOT_AUTHORIZE" "$SESSIONKIT_DOT_CLIENT_ID" "$SESSIONKIT_DOT_REDIRECT_URI" "$STATE" "$NONCE")"
    LOCATION=$(location_of "$WORK/h")
    CODE=$(query_param "$LOCATION" code)
}
dot_exchange() { # dot_exchange VERIFIER OUT -> status
    post "$DOT_TOKEN" "$2" -d grant_type=authorization_code -d client_id="$SESSIONKIT_DOT_CLIENT_ID" \
        --data-urlencode "redirect_uri=$SESSIONKIT_DOT_REDIRECT_URI" --data-urlencode "code=$CODE" \
        --data-urlencode "code_verifier=$1"
}
dot_refresh() { # dot_refresh REFRESH_TOKEN OUT -> status
    post "$DOT_TOKEN" "$2" -d grant_type=refresh_token -d client_id="$SESSIONKIT_DOT_CLIENT_ID" \
        --data-urlencode "refresh_token=$1"
}

step "authorize without a browser (header $SESSIONKIT_DOT_USER_HEADER): 302 to the redirect URI with code, state, iss"
dot_sign_in alice
check "redirect" "${LOCATION%%\?*} $(query_param "$LOCATION" state) $(query_param "$LOCATION" iss) $([[ -n $CODE ]] && echo code)" \
    "$SESSIONKIT_DOT_REDIRECT_URI $STATE $SESSIONKIT_DOT_ISSUER code"

step "authorize without a PKCE challenge is refused"
curl -sS -o /dev/null -D "$WORK/h" -H "$SESSIONKIT_DOT_USER_HEADER: alice" \
    "$SESSIONKIT_DOT_ISSUER/authorize/?response_type=code&client_id=$SESSIONKIT_DOT_CLIENT_ID&redirect_uri=$(urlencode "$SESSIONKIT_DOT_REDIRECT_URI")&scope=openid&state=s"
check error "$(query_param "$(location_of "$WORK/h")" error)" invalid_request

step "token exchange with a wrong code_verifier gives invalid_grant"
status=$(dot_exchange "${VERIFIER}x" "$WORK/t")
check "status and error" "$status $(json "$WORK/t" .error)" "400 invalid_grant"

step "token exchange with PKCE returns access, refresh and id tokens"
status=$(dot_exchange "$VERIFIER" "$WORK/t1")
check "status and token kinds" "$status $(jq -r '[.access_token, .refresh_token, .id_token | length > 0] | all' "$WORK/t1") $(json "$WORK/t1" .token_type)" "200 true Bearer"
RT1=$(json "$WORK/t1" .refresh_token)
ID1=$(json "$WORK/t1" .id_token)

step "id_token: RS256, iss, aud string, numeric sub, nonce, at_hash"
check "alg and claims" "$(jose_header "$ID1" | jq -r .alg) $(claims "$ID1" | jq -r --arg iss "$SESSIONKIT_DOT_ISSUER" --arg aud "$SESSIONKIT_DOT_CLIENT_ID" --arg nonce "$NONCE" \
    '[.iss == $iss, .aud == $aud, (.sub | test("^[0-9]+$")), .nonce == $nonce, (.at_hash | length > 0)] | all')" "RS256 true"

step "the id_token's kid is in the JWKS"
curl -sSf -o "$WORK/jwks" "$DOT_JWKS"
check kid "$(jq -r --arg kid "$(header_kid "$ID1")" '[.keys[].kid] | index($kid) != null' "$WORK/jwks")" true

step "refresh rotates the refresh token"
status=$(dot_refresh "$RT1" "$WORK/t2")
RT2=$(json "$WORK/t2" .refresh_token)
check "status, new refresh token, id_token" "$status $([[ -n $RT2 && $RT2 != "$RT1" ]] && echo rotated) $(json "$WORK/t2" .id_token | wc -c | awk '{print ($1 > 1)}')" "200 rotated 1"

step "refreshed id_token keeps iss, sub, aud"
check "same iss/sub/aud" "$(claims "$(json "$WORK/t2" .id_token)" | jq -c '[.iss, .sub, .aud]')" "$(claims "$ID1" | jq -c '[.iss, .sub, .aud]')"

step "replaying the rotated-out refresh token gives invalid_grant"
status=$(dot_refresh "$RT1" "$WORK/t")
check "status and error" "$status $(json "$WORK/t" .error)" "400 invalid_grant"

step "the replay revoked the chain: the newest refresh token fails too"
status=$(dot_refresh "$RT2" "$WORK/t")
check "status and error" "$status $(json "$WORK/t" .error)" "400 invalid_grant"

step "a new sign-in (user bob) for revocation"
dot_sign_in bob
status=$(dot_exchange "$VERIFIER" "$WORK/t3")
check status "$status" 200
RT3=$(json "$WORK/t3" .refresh_token)
AT3=$(json "$WORK/t3" .access_token)

step "the access token works at userinfo before revocation"
check status "$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $AT3" "$DOT_USERINFO")" 200

step "RFC 7009 revocation of the refresh token answers 200"
status=$(post "$SESSIONKIT_DOT_REVOCATION_ENDPOINT" "$WORK/r" -d client_id="$SESSIONKIT_DOT_CLIENT_ID" \
    --data-urlencode "token=$RT3" -d token_type_hint=refresh_token)
check status "$status" 200

step "the revoked refresh token gives invalid_grant"
status=$(dot_refresh "$RT3" "$WORK/t")
check "status and error" "$status $(json "$WORK/t" .error)" "400 invalid_grant"

step "revoking the refresh token also revoked its access token"
check status "$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $AT3" "$DOT_USERINFO")" 401

step "revoking again (already revoked) still answers 200"
status=$(post "$SESSIONKIT_DOT_REVOCATION_ENDPOINT" "$WORK/r" -d client_id="$SESSIONKIT_DOT_CLIENT_ID" --data-urlencode "token=$RT3")
check status "$status" 200

step "signing-key rotation: new tokens carry the new kid, the old key stays published"
OLD_KID=$(header_kid "$ID1")
curl -sSf -o "$WORK/rot" -X POST "$SESSIONKIT_DOT_ROTATE_KEY_URL"
dot_sign_in carol
status=$(dot_exchange "$VERIFIER" "$WORK/t4")
NEW_KID=$(header_kid "$(json "$WORK/t4" .id_token)")
curl -sSf -o "$WORK/jwks" "$DOT_JWKS"
check "new kid active and both published" \
    "$status $([[ $NEW_KID != "$OLD_KID" ]] && echo changed) $(jq -r --arg a "$OLD_KID" --arg b "$NEW_KID" '[.keys[].kid] | (index($a) != null and index($b) != null)' "$WORK/jwks") $(json "$WORK/rot" .active_kid)" \
    "200 changed true $NEW_KID"

# ---------------------------------------------------------------------------------------------
echo "oidc-provider-mock at $SESSIONKIT_MOCK_ISSUER"
MOCK_CONFIG="$WORK/mock-config.json"

step "discovery answers and its issuer equals the configured one"
curl -sSf -o "$MOCK_CONFIG" "$SESSIONKIT_MOCK_ISSUER/.well-known/openid-configuration"
check issuer "$(json "$MOCK_CONFIG" .issuer)" "$SESSIONKIT_MOCK_ISSUER"
MOCK_AUTHORIZE=$(json "$MOCK_CONFIG" .authorization_endpoint)
MOCK_TOKEN=$(json "$MOCK_CONFIG" .token_endpoint)
MOCK_JWKS=$(json "$MOCK_CONFIG" .jwks_uri)

step "discovery has no revocation endpoint"
check revocation_endpoint "$(json "$MOCK_CONFIG" .revocation_endpoint)" ""

mock_sign_in() { # mock_sign_in SUB -> sets LOCATION, STATE, NONCE, CODE and a fresh VERIFIER
    new_pkce
    STATE=$(openssl rand -hex 8)
    NONCE=$(openssl rand -hex 8)
    curl -sS -o /dev/null -D "$WORK/h" -X POST --data-urlencode "sub=$1" \
        "$(authorize_url "$MOCK_AUTHORIZE" "$SESSIONKIT_MOCK_CLIENT_ID" "$SESSIONKIT_MOCK_REDIRECT_URI" "$STATE" "$NONCE")"
    LOCATION=$(location_of "$WORK/h")
    CODE=$(query_param "$LOCATION" code)
}
mock_exchange() {
    post "$MOCK_TOKEN" "$2" -d grant_type=authorization_code -d client_id="$SESSIONKIT_MOCK_CLIENT_ID" \
        --data-urlencode "redirect_uri=$SESSIONKIT_MOCK_REDIRECT_URI" --data-urlencode "code=$CODE" \
        --data-urlencode "code_verifier=$1"
}
mock_refresh() {
    post "$MOCK_TOKEN" "$2" -d grant_type=refresh_token -d client_id="$SESSIONKIT_MOCK_CLIENT_ID" \
        --data-urlencode "refresh_token=$1"
}

step "authorize without a browser (POST sub=alice): 302 to the redirect URI with code and state"
mock_sign_in alice
check "redirect" "${LOCATION%%\?*} $(query_param "$LOCATION" state) $([[ -n $CODE ]] && echo code)" \
    "$SESSIONKIT_MOCK_REDIRECT_URI $STATE code"

step "token exchange with PKCE returns access, refresh and id tokens"
status=$(mock_exchange "$VERIFIER" "$WORK/m1")
check "status and token kinds" "$status $(jq -r '[.access_token, .refresh_token, .id_token | length > 0] | all' "$WORK/m1")" "200 true"
MRT=$(json "$WORK/m1" .refresh_token)
MID=$(json "$WORK/m1" .id_token)

step "id_token: RS256, iss, aud array without azp, sub, nonce, at_hash, kid in JWKS"
curl -sSf -o "$WORK/mjwks" "$MOCK_JWKS"
check "alg, claims, kid" "$(jose_header "$MID" | jq -r .alg) $(claims "$MID" | jq -r --arg iss "$SESSIONKIT_MOCK_ISSUER" --arg aud "$SESSIONKIT_MOCK_CLIENT_ID" --arg nonce "$NONCE" \
    '[.iss == $iss, .aud == [$aud], .azp == null, .sub == "alice", .nonce == $nonce, (.at_hash | length > 0)] | all') $(jq -r --arg kid "$(header_kid "$MID")" '[.keys[].kid] | index($kid) != null' "$WORK/mjwks")" "RS256 true true"

step "quirk: a wrong code_verifier is accepted (PKCE is not checked)"
mock_sign_in alice
status=$(mock_exchange "wrong-verifier" "$WORK/t")
check status "$status" 200

step "refresh answers without a new refresh token (no rotation)"
status=$(mock_refresh "$MRT" "$WORK/m2")
check "status, refresh_token absent, id_token present" "$status $(json "$WORK/m2" .refresh_token) $(json "$WORK/m2" .id_token | wc -c | awk '{print ($1 > 1)}')" "200  1"

step "the same refresh token works again"
status=$(mock_refresh "$MRT" "$WORK/m3")
check status "$status" 200

step "no RFC 7009 endpoint: /oauth2/revoke is 404"
check status "$(post "${MOCK_TOKEN%/token}/revoke" "$WORK/r" -d token=x)" 404

step "server-side revocation via POST /users/alice/revoke-tokens, then invalid_grant"
revoked=$(post "$SESSIONKIT_MOCK_USERS_URL/alice/revoke-tokens" "$WORK/r")
status=$(mock_refresh "$MRT" "$WORK/t")
check "revoke status, then refresh status and error" "$revoked $status $(json "$WORK/t" .error)" "204 400 invalid_grant"

echo "smoke: $passed passed, $failed failed"
((failed == 0))
