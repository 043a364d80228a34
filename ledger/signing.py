"""The master's signing key: an Ed25519 key (the ``cryptography`` package) kept
outside the campaign database, so that whoever holds the database file alone cannot
sign a rewritten record.

The key lives at ``--key FILE``, else ``$LEDGER_KEY``, else
``$XDG_CONFIG_HOME/campaign-ledger/signing-key.pem`` (``~/.config/…``), as an
unencrypted PKCS#8 PEM file readable by its owner only. Public keys and signatures
are written as base64 of their raw bytes (44 and 88 characters).
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path

from .errors import BadInput, StoreError
from .i18n import _

KEY_ENV = "LEDGER_KEY"


def key_path(explicit: str | Path | None = None) -> Path:
    """Where the signing key is (or would be created)."""
    if explicit:
        return Path(explicit)
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "campaign-ledger" / "signing-key.pem"


class Signer:
    """A loaded private key: signs messages, and names its public key."""

    def __init__(self, private_key, path: Path):
        self._key = private_key
        self.path = path
        raw = private_key.public_key().public_bytes_raw()
        self.public = base64.b64encode(raw).decode("ascii")

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self._key.sign(message)).decode("ascii")


def create_key(path: Path) -> Signer:
    """Creates a new key file (never over an existing one), readable by its owner only."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    if path.exists():
        raise BadInput(_("{path} already exists; a key is never overwritten (choose another with --key FILE)").format(
            path=path))
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(pem)
    except OSError as exc:
        raise StoreError(_("cannot write the key to {path} ({error})").format(
            path=path, error=exc.strerror or exc.__class__.__name__)) from None
    return Signer(key, path)


def load_signer(path: Path) -> Signer | None:
    """The key at ``path``, or None when there is none (signing is optional)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(_("cannot read the signing key {path} ({error})").format(
            path=path, error=exc.strerror or exc.__class__.__name__)) from None
    from cryptography.hazmat.primitives import serialization  # loaded only when there is a key
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise BadInput(_("{path} is not a signing key (make one with ledger keys init)").format(path=path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadInput(_("{path} is not an Ed25519 signing key (make one with ledger keys init)").format(path=path))
    return Signer(key, path)


def check_public_key(text: str) -> str:
    """A public key as given on the command line, checked (base64 of 32 bytes)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise BadInput(_("{key} is not a public key; it is the 44 characters ledger keys show prints").format(
            key=repr(text[:60])))
    return text


def signature_holds(public: str, message: bytes, signature: str) -> bool:
    """Does ``signature`` (base64) sign ``message`` under ``public`` (base64)?"""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public, validate=True))
        key.verify(base64.b64decode(signature, validate=True), message)
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True
