"""The record you can trust, in Portuguese too (issue 16): ``verify``'s findings, the
storage failures put in words (``ledger.storage_errors``), import refusals and the
guards of the record (checkpoints, keys, seats, campaigns), through the ``ledger``
command with ``--lang pt`` or ``LEDGER_LANG=pt``, and the same in English as before.

Each failure is made for real on a real SQLite file (a file that is no database, a
missing one, a lock held by this process, a row changed with raw SQL, an export cut
short); each must give the same exit status and the same ``--json`` code in both
languages, only the words change.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ledger.catalog import sample_catalog_path

from .conftest import one_error_line, run_ledger, succeeded

SAMPLE = str(sample_catalog_path())
PT = ("--lang", "pt")

PLAY = [
    ["init", "--catalog", SAMPLE, "--name", "Confiável"],
    ["hero", "add", "ana", "--knowledge", "1"],
    ["add", "item-sword", "item-bow", "item-axe", "--to", "deck:item"],
    ["--actor", "ana", "draw", "deck:item"],
    ["send", "item-axe", "--to", "depot"],
]
SEQS = len(PLAY)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("trust") / "campaign.db"
    for args in PLAY:
        succeeded(run_ledger(*args, db=db))
    return db


@pytest.fixture
def copy(campaign, tmp_path) -> Path:
    """A copy of the campaign, to tamper with (the file alone: the campaign has no -wal left)."""
    db = tmp_path / "campaign.db"
    shutil.copy(campaign, db)
    return db


def both(*args: str, db: Path | str | None = None, env: dict | None = None):
    """The same command in English and in Portuguese (``--lang pt``, before the others)."""
    where = ("--db", str(db)) if db is not None else ()
    return run_ledger(*where, *args, env=env), run_ledger(*PT, *where, *args, env=env)


def same_json_error(en, pt) -> tuple[str, str]:
    """Two ``--json`` refusals that differ only in their words: same exit status, same
    code. Returns the two messages."""
    assert en.returncode == pt.returncode == 1, (en.stderr, pt.stderr)
    one_error_line(en), one_error_line(pt)
    error_en, error_pt = json.loads(en.stdout)["error"], json.loads(pt.stdout)["error"]
    assert error_en["code"] == error_pt["code"], (error_en, error_pt)
    assert error_en["message"] != error_pt["message"], "the Portuguese message is the English one"
    return error_en["message"], error_pt["message"]


def verify_error(result) -> str:
    """Verify's one ``error:`` line (its progress may leave a blank line on stderr), exit 1."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def campaign_id(db: Path) -> str:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT originator_id FROM stored_events WHERE topic LIKE '%CampaignStarted'").fetchone()[0]


# -- verify ------------------------------------------------------------------------------------
def test_verify_of_an_intact_campaign_says_ok_in_portuguese_and_in_english_as_before(copy):
    en, pt = both("verify", db=copy)
    succeeded(en), succeeded(pt)
    assert en.stdout.startswith(f"ok: {SEQS} actions of confiavel: hash chain intact, every action replays under the "
                                "rules, snapshots and checkpoints match; head 5:")
    assert pt.stdout.startswith("ok: ") and "confiavel" in pt.stdout
    assert "hash chain intact" not in pt.stdout and "actions of" not in pt.stdout, pt.stdout
    head = en.stdout.strip().rsplit(" ", 1)[-1]
    assert pt.stdout.strip().endswith(head), "the head is shown as it is, in either language"


def test_verify_json_is_the_same_in_both_languages_but_for_its_message(copy):
    en, pt = both("--json", "verify", db=copy)
    report_en, report_pt = json.loads(succeeded(en).stdout), json.loads(succeeded(pt).stdout)
    assert report_en["ok"] is True and report_en["actions"] == SEQS
    assert {k: v for k, v in report_en.items() if k != "message"} == \
        {k: v for k, v in report_pt.items() if k != "message"}


def changed_actor(db: Path) -> None:
    """Seq 3's stored event says ana added the cards (the master did), hashes untouched."""
    with sqlite3.connect(db) as con:
        (state,) = con.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 3",
                               [campaign_id(db)]).fetchone()
        event = json.loads(state)
        event["actor"] = "ana"
        con.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 3",
                    [json.dumps(event, separators=(",", ":")).encode(), campaign_id(db)])


def deleted_row(db: Path) -> None:
    with sqlite3.connect(db) as con:
        assert con.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = 3",
                           [campaign_id(db)]).rowcount == 1


TAMPERED: list[tuple[Callable[[Path], None], str, str]] = [
    (changed_actor, "seq 3 does not match its hash: it was changed or moved",
     "a seq 3 não confere com o seu hash: foi alterada ou movida"),
    (deleted_row, "seq 3 is missing from the log", "a seq 3 falta no log"),
]


@pytest.mark.parametrize("tamper,english,portuguese", TAMPERED, ids=[t[0].__name__ for t in TAMPERED])
def test_verify_of_a_tampered_database_names_the_first_bad_seq_in_portuguese(copy, tamper, english, portuguese):
    tamper(copy)
    en, pt = both("verify", db=copy)
    assert english in verify_error(en)
    line = verify_error(pt)
    assert portuguese in line and english not in line, line
    en, pt = both("--json", "verify", db=copy)
    report_en, report_pt = json.loads(en.stdout), json.loads(pt.stdout)
    assert report_en["ok"] is report_pt["ok"] is False
    assert report_en["bad_seq"] == report_pt["bad_seq"] == 3
    assert portuguese in report_pt["reason"] and english in report_en["reason"]


def resealed_actor(db: Path) -> None:
    """Seq 3's stored event says ana added the cards, and its hash and every later one
    are made again, as a careful forger would: only replaying the action finds it."""
    from uuid import UUID

    from ledger.application import Ledger
    from ledger.integrity import sealed

    changed_actor(db)
    cid = UUID(campaign_id(db))
    ledger = Ledger.open(db)
    try:
        events = [ledger.mapper.to_domain_event(stored) for stored in ledger.recorder.select_events(cid)]
    finally:
        ledger.close()
    previous, hashes = events[1].hash, {}
    for event in events[2:]:
        event = sealed(previous, event)
        previous = hashes[event.seq] = event.hash
    with sqlite3.connect(db) as con:
        for seq, digest in hashes.items():
            (state,) = con.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                                   [campaign_id(db), seq]).fetchone()
            data = json.loads(state)
            data["hash"] = digest
            con.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                        [json.dumps(data, separators=(",", ":")).encode(), campaign_id(db), seq])


def test_verify_of_a_resealed_action_that_does_not_replay_is_one_whole_sentence_in_portuguese(copy):
    """What replaying finds is said whole, seq and all ("a seq 3 não reproduz..."), not
    glued from "seq 3" and a fragment."""
    resealed_actor(copy)
    en, pt = both("--json", "verify", db=copy)
    report_en, report_pt = json.loads(en.stdout), json.loads(pt.stdout)
    assert report_en["bad_seq"] == report_pt["bad_seq"] == 3
    assert report_en["reason"].endswith(": seq 3 does not replay to what was recorded"), report_en["reason"]
    assert report_pt["reason"].endswith(": a seq 3 não reproduz, ao ser refeita, o que foi registrado"), \
        report_pt["reason"]


def test_verify_against_a_checkpoint_the_log_no_longer_holds_says_so_in_portuguese(copy):
    expect = ("verify", "--expect", f"2:{'0' * 64}")
    en, pt = both(*expect, db=copy)
    assert ("the log's head at seq 2 is not the one the checkpoint you hold names: the record was rewritten at or "
            "before seq 2") in verify_error(en)
    assert ("a cabeça do log na seq 2 não é a que o ponto de controle que você guardou indica: o registro foi "
            "reescrito na seq 2 ou antes dela") in verify_error(pt)


# -- storage failures ----------------------------------------------------------------------------
def test_a_file_that_is_no_sqlite_database_is_refused_in_portuguese_with_the_same_status_and_code(tmp_path):
    db = tmp_path / "notes.db"
    db.write_text("my notes, not a campaign\n" * 20)
    en, pt = both("--json", "verify", db=db)
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == f"{db} is not a campaign database (not an SQLite file)"
    assert message_pt == f"{db} não é um banco de dados de campanha (não é um arquivo SQLite)"
    assert json.loads(pt.stdout)["error"]["code"] == "store"
    assert db.read_text() == "my notes, not a campaign\n" * 20


def test_a_missing_database_is_named_in_portuguese_with_the_same_status_and_code(tmp_path):
    db = tmp_path / "nowhere.db"
    en, pt = both("--json", "verify", db=db)
    message_en, message_pt = same_json_error(en, pt)
    assert message_en.startswith(f"no campaign database at {db}; start one with ledger init")
    assert message_pt == (f"não há banco de dados de campanha em {db}; comece um com ledger init --catalog FILE "
                          "(ou indique outro com --db)")
    assert not db.exists()


def test_a_database_under_a_file_says_in_portuguese_that_the_file_is_no_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("mine\n")
    db = tmp_path / "notes.txt" / "campaign.db"
    en, pt = both("--json", "init", "--catalog", SAMPLE, db=db)
    message_en, message_pt = same_json_error(en, pt)
    assert message_en.startswith(f"{db.parent} is a file, not a folder")
    assert message_pt == (f"{db.parent} é um arquivo, não uma pasta, então não pode haver o banco de dados {db} "
                          "(indique outro arquivo com --db)")
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_lock_held_beyond_the_timeout_is_told_in_portuguese_and_nothing_is_recorded(copy):
    holder = sqlite3.connect(copy, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        quick = {"LEDGER_LOCK_TIMEOUT": "0.2"}
        en, pt = both("--json", "--actor", "ana", "draw", "deck:item", db=copy, env=quick)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == (f"{copy} is busy: another program has kept it locked for over 0.2 seconds (let it finish, "
                          "or close it and try again; nothing was recorded)")
    assert message_pt == (f"{copy} está ocupado: outro programa o mantém bloqueado por mais de 0.2 segundos (espere "
                          "que ele termine, ou feche-o e tente de novo; nada foi registrado)")
    assert json.loads(succeeded(run_ledger("--json", "verify", db=copy)).stdout)["actions"] == SEQS


FULL_AND_LOCKED = [  # (kind, seconds, writing, recorded): English as it always read, and the Portuguese
    ("full", None, True, 0, ("cannot record to DB: the disk is full (free some space and try again; nothing was "
                            "recorded)"),
     "não foi possível gravar em DB: o disco está cheio (libere espaço e tente de novo; nada foi registrado)"),
    ("full", None, True, -1, "cannot record to DB: the disk is full (free some space and try again)",
     "não foi possível gravar em DB: o disco está cheio (libere espaço e tente de novo)"),
    ("full", None, True, 2, ("cannot finish writing to DB: the disk is full (free some space; 2 actions were recorded "
                            "before this, whole: do not record it again, ledger history shows it once this is fixed)"),
     "não foi possível terminar de gravar em DB: o disco está cheio (libere espaço; "),
    ("full", None, False, 0, ("cannot read DB: the disk is full (free some space and try again; SQLite needs a little "
                             "room beside the file even to read it; nothing was recorded)"),
     ("não foi possível ler DB: o disco está cheio (libere espaço e tente de novo; o SQLite precisa de um pouco de "
     "espaço ao lado do arquivo até para lê-lo; nada foi registrado)")),
    ("full", None, False, 1, ("cannot read DB: the disk is full (free some space; SQLite needs a little room beside "
                             "the file even to read it; its action was recorded before this, whole: do not record it "
                             "again, ledger history shows it once this is fixed)"),
     ("não foi possível ler DB: o disco está cheio (libere espaço; o SQLite precisa de um pouco de espaço ao lado do "
     "arquivo até para lê-lo; ")),
    ("locked", 2.5, True, 0, ("DB is busy: another program has kept it locked for over 2.5 seconds (let it finish, or "
                             "close it and try again; nothing was recorded)"),
     ("DB está ocupado: outro programa o mantém bloqueado por mais de 2.5 segundos (espere que ele termine, ou feche-o "
     "e tente de novo; nada foi registrado)")),
    ("locked", 30.0, True, 1, ("DB is busy: another program has kept it locked for over 30 seconds (let it finish, or "
                              "close it; its action was recorded before this, whole: do not record it again, ledger "
                              "history shows it once this is fixed)"),
     ("DB está ocupado: outro programa o mantém bloqueado por mais de 30 segundos (espere que ele termine, ou "
     "feche-o; ")),
    ("locked", None, True, -1, ("DB is busy: another program has kept it locked (let it finish, or close it and try "
                               "again)"),
     "DB está ocupado: outro programa o mantém bloqueado (espere que ele termine, ou feche-o e tente de novo)"),
    ("locked", None, False, 3, ("DB is busy: another program has kept it locked (let it finish, or close it; 3 actions "
                               "were recorded before this, whole: do not record it again, ledger history shows it "
                               "once this is fixed)"),
     "DB está ocupado: outro programa o mantém bloqueado (espere que ele termine, ou feche-o; "),
]


@pytest.mark.parametrize("kind,seconds,writing,recorded,english,portuguese", FULL_AND_LOCKED,
                         ids=[f"{k}-{s}-{'write' if w else 'read'}-{r}" for k, s, w, r, *_ in FULL_AND_LOCKED])
def test_a_full_disk_and_a_lock_are_whole_sentences_in_portuguese_and_as_before_in_english(
        tmp_path, kind, seconds, writing, recorded, english, portuguese):
    """Each variant (try again or not, reading or writing, the lock's timeout known or
    not) is a sentence of its own in the catalog; only what was recorded is added."""
    from ledger.i18n import speaking
    from ledger.storage_errors import Problem, problem_message

    db = tmp_path / "DB"
    db.write_text("")  # an existing file: named as it is
    said = {}
    for language in ("en", "pt"):
        with speaking(language):
            said[language] = problem_message(Problem(kind, seconds=seconds), db, writing=writing,
                                             recorded=recorded).replace(str(db), "DB")
    assert said["en"] == english
    assert said["pt"].startswith(portuguese), said["pt"]
    assert not any(word in said["pt"] for word in ("try again", "seconds", "SQLite needs", "recorded"))


def test_a_lock_timeout_that_is_no_number_is_refused_in_portuguese_through_ledger_lang(copy):
    env = {"LEDGER_LOCK_TIMEOUT": "soon"}
    en = run_ledger("--json", "zones", db=copy, env=env)
    pt = run_ledger("--json", "zones", db=copy, env=env | {"LEDGER_LANG": "pt"})
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == "LEDGER_LOCK_TIMEOUT=soon: use a number of seconds above 0 (default 30)"
    assert message_pt == "LEDGER_LOCK_TIMEOUT=soon: use um número de segundos acima de 0 (padrão 30)"


# -- import refusals ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exported(campaign, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "campaign.jsonl"
    succeeded(run_ledger("export", str(path), db=campaign))
    return path


def no_campaign_in(target: Path) -> None:
    if target.exists():
        assert json.loads(succeeded(run_ledger("--json", "campaigns", db=target)).stdout) == []


def test_an_export_cut_short_is_refused_in_portuguese_and_the_target_gets_nothing(exported, tmp_path):
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(exported.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    target = tmp_path / "other.db"
    en, pt = both("--json", "import", str(cut), "--db", str(target))
    message_en, message_pt = same_json_error(en, pt)
    assert message_en.startswith(f"{cut}: refused, it has no trailer line: the file was cut short")
    assert message_pt == (f"{cut}: recusado, não tem a linha de trailer: o arquivo foi cortado (uma exportação "
                          "escrita antes de existirem trailers se importa com --without-trailer, conferida do mesmo "
                          "jeito)")
    no_campaign_in(target)


def test_a_tampered_export_is_refused_in_portuguese_naming_the_bad_seq(exported, tmp_path):
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    lines[2]["event"]["actor"] = "ana"
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    target = tmp_path / "other.db"
    en, pt = both("--json", "import", str(tampered), "--db", str(target))
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == f"{tampered}: refused, seq 3 is bad: seq 3 does not match its hash: it was changed or moved"
    assert message_pt == (f"{tampered}: recusado, a seq 3 está errada: a seq 3 não confere com o seu hash: foi "
                          "alterada ou movida")
    no_campaign_in(target)


def test_a_viewers_export_is_refused_in_portuguese(campaign, tmp_path):
    mine = tmp_path / "ana.jsonl"
    succeeded(run_ledger("--as", "ana", "export", str(mine), db=campaign))
    target = tmp_path / "other.db"
    en, pt = both("--json", "import", str(mine), "--db", str(target))
    message_en, message_pt = same_json_error(en, pt)
    assert message_en.startswith(f"{mine}: refused, it is what ana may know of the campaign")
    assert message_pt == (f"{mine}: recusado, é o que ana pode saber da campanha (sem as cartas ocultas); só a "
                          "exportação do árbitro (ledger export, sem --as) pode ser importada")
    no_campaign_in(target)


def test_importing_into_a_file_that_holds_the_campaign_is_refused_in_portuguese(exported, campaign, tmp_path):
    target = tmp_path / "campaign.db"
    shutil.copy(campaign, target)
    en, pt = both("--json", "import", str(exported), "--db", str(target))
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == f"{target} already holds a campaign 'confiavel'; import into another database with --db"
    assert message_pt == f"{target} já tem uma campanha 'confiavel'; importe para outro banco de dados com --db"


def test_a_missing_export_file_is_named_in_portuguese(tmp_path):
    en, pt = both("--json", "import", str(tmp_path / "nowhere.jsonl"), "--db", str(tmp_path / "other.db"))
    message_en, message_pt = same_json_error(en, pt)
    assert message_en == f"{tmp_path / 'nowhere.jsonl'}: no such export file"
    assert message_pt == f"{tmp_path / 'nowhere.jsonl'}: o arquivo de exportação não existe"


# -- the guards of the record: checkpoints, keys, seats, campaigns ------------------------------------
GUARDS = {
    "expect": (["verify", "--expect", "42"],
               "--expect '42': write a checkpoint as SEQ:HEAD",
               ("--expect '42': escreva um ponto de controle como SEQ:HEAD, p. ex. 42:00000000… (o hash da cabeça, "
                "de 64 caracteres, que uma visão ou ledger checkpoint mostrou)")),
    "signed-by": (["verify", "--signed-by", "abc"],
                  "'abc' is not a public key; it is the 44 characters ledger keys show prints",
                  "'abc' não é uma chave pública; ela é os 44 caracteres que ledger keys show mostra"),
    "seat": (["seat", "revoke", "ana"],
             "ana has no seat in this campaign (see ledger seat list)",
             "ana não tem lugar nesta campanha (veja ledger seat list)"),
    "campaign": (["--campaign", "sul", "zones"],
                 "no campaign 'sul' in this database (campaigns: confiavel)",
                 "não há campanha 'sul' neste banco de dados (campanhas: confiavel)"),
    "at": (["zones", "--at", "99"],
           "seq 99 is past the last action (seq 5)",
           "a seq 99 passa da última ação (seq 5)"),
}


@pytest.mark.parametrize("args,english,portuguese", GUARDS.values(), ids=GUARDS.keys())
def test_the_guards_of_the_record_refuse_in_portuguese_with_the_same_code(copy, args, english, portuguese):
    en, pt = both("--json", *args, db=copy)
    message_en, message_pt = same_json_error(en, pt)
    assert message_en.startswith(english), message_en
    assert message_pt.startswith(portuguese), message_pt
