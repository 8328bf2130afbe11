#!/bin/sh
# Online backup of the event log: SQLite's backup API gives a consistent copy while the
# server keeps writing (WAL). Keeps 30 days. Run from cron or autohost-backup.timer.
#   deploy/backup-event-log.sh [DB] [DEST]
set -eu
DB="${1:-/var/lib/autohost/autohost.db}"
DEST="${2:-/var/backups/autohost}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$DEST"
OUT="$DEST/autohost-$(date -u +%Y%m%dT%H%M%SZ).db"
"$PYTHON" - "$DB" "$OUT" <<'PY'
import sqlite3
import sys

source, target = sys.argv[1], sys.argv[2]
src = sqlite3.connect(source, timeout=30)
dst = sqlite3.connect(target)
src.backup(dst)
ok = dst.execute("PRAGMA integrity_check").fetchone()[0]
dst.close()
src.close()
if ok != "ok":
    sys.exit(f"backup {target} failed its integrity check: {ok}")
print(target)
PY
find "$DEST" -name 'autohost-*.db' -mtime +30 -delete
