#!/bin/sh
# Copy the site's TLS certificate where coturn reads it for TURN over TLS (port 5349), and
# restart coturn, only when it changed. From Caddy's storage (no renewal hook there: run by
# coturn-certificate.timer) or from certbot (run as its --deploy-hook, which sets
# RENEWED_LINEAGE). docs/deploy.md, step 5.
#   deploy/coturn-certificate.sh NAME [DEST]
# Environment: CADDY_CERTIFICATES (Caddy's certificates folder), COTURN_GROUP (turnserver),
# COTURN_RESTART (the command that restarts coturn: systemctl try-restart coturn).
set -eu
NAME="${1:?usage: coturn-certificate.sh NAME [DEST], e.g. mafia.example.org}"
DEST="${2:-/etc/coturn}"
CADDY="${CADDY_CERTIFICATES:-/var/lib/caddy/.local/share/caddy/certificates}"
GROUP="${COTURN_GROUP:-turnserver}"
RESTART="${COTURN_RESTART:-systemctl try-restart coturn}"

cert=""
if [ -n "${RENEWED_LINEAGE:-}" ]; then
    cert="$RENEWED_LINEAGE/fullchain.pem"
    key="$RENEWED_LINEAGE/privkey.pem"
elif [ -e "/etc/letsencrypt/live/$NAME/fullchain.pem" ]; then
    cert="/etc/letsencrypt/live/$NAME/fullchain.pem"
    key="/etc/letsencrypt/live/$NAME/privkey.pem"
else
    # Caddy: certificates/<issuer>/<name>/<name>.crt (acme-v02... or `local` for tls internal)
    for found in "$CADDY"/*/"$NAME/$NAME.crt"; do
        [ -e "$found" ] && cert="$found"
    done
    key="${cert%.crt}.key"
fi
if [ -z "$cert" ] || [ ! -r "$cert" ] || [ ! -r "$key" ]; then
    echo "coturn-certificate: no certificate for $NAME in Caddy's $CADDY or certbot's" \
        "/etc/letsencrypt/live/$NAME; has https://$NAME/ been opened once?" >&2
    exit 1
fi
if cmp -s "$cert" "$DEST/fullchain.pem" && cmp -s "$key" "$DEST/privkey.pem"; then
    exit 0
fi
install -d -m 0750 -o root -g "$GROUP" "$DEST"
install -m 0644 -o root -g "$GROUP" "$cert" "$DEST/fullchain.pem.new"
install -m 0640 -o root -g "$GROUP" "$key" "$DEST/privkey.pem.new"
mv -f "$DEST/fullchain.pem.new" "$DEST/fullchain.pem"
mv -f "$DEST/privkey.pem.new" "$DEST/privkey.pem"
echo "coturn-certificate: $cert copied to $DEST; restarting coturn"
$RESTART
