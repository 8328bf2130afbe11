"""The server's certificate and key, checked before uvicorn starts: a volunteer who points
`tls.cert` at certbot's root-only files, or at a key from another certificate, gets one line
naming the file and what to do, not a traceback from deep inside uvicorn (issue 32)."""

from __future__ import annotations

import getpass
import os
import ssl
from pathlib import Path

__all__ = ["TlsFilesError", "check_tls_files"]


class TlsFilesError(Exception):
    """A certificate or key the server cannot use; the message names the file and the fix."""


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid with no name (a container's)
        return f"uid {os.getuid()}"


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        raise TlsFilesError(f"tls: the {what} {path} does not exist; give its full path") from None
    except PermissionError:
        raise TlsFilesError(
            f"tls: the {what} {path} is not readable by the user {_user()}; copy it where that "
            f"user may read it (certbot's files are root-only: use a --deploy-hook, "
            f"see docs/deploy.md) or serve through Caddy or nginx"
        ) from None
    except IsADirectoryError:
        raise TlsFilesError(f"tls: the {what} {path} is a directory; give the file") from None
    except OSError as error:
        raise TlsFilesError(f"tls: cannot read the {what} {path}: {error.strerror}") from None


def check_tls_files(cert: Path, key: Path) -> None:
    """Raise TlsFilesError unless `cert` is a readable PEM certificate chain and `key` is
    its readable, unencrypted private key."""
    if "-----BEGIN CERTIFICATE-----" not in _read(cert, "certificate"):
        raise TlsFilesError(
            f"tls: the certificate {cert} is not a PEM certificate; give the full chain "
            f"(certbot's fullchain.pem)"
        )
    key_text = _read(key, "key")
    if "PRIVATE KEY-----" not in key_text:
        raise TlsFilesError(
            f"tls: the key {key} is not a PEM private key; give the certificate's key "
            f"(certbot's privkey.pem)"
        )
    if "ENCRYPTED" in key_text:
        raise TlsFilesError(
            f"tls: the key {key} is protected by a passphrase; give an unencrypted key"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        # The callback answers a passphrase prompt with nothing, so nothing ever waits on a tty.
        context.load_cert_chain(str(cert), str(key), password=lambda: b"")
    except ssl.SSLError as error:
        if "KEY_VALUES_MISMATCH" in str(error):
            raise TlsFilesError(
                f"tls: the key {key} does not belong to the certificate {cert}; give the key "
                f"made with this certificate (certbot: privkey.pem of the same live/ folder)"
            ) from None
        raise TlsFilesError(
            f"tls: the certificate {cert} or its key {key} cannot be used "
            f"({error.reason or error}); give a PEM certificate chain and its key"
        ) from None
