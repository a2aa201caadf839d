#!/usr/bin/env python3
"""Keep the text catalogue (gettext PO files, one per language and room) whole.

    .venv/bin/python scripts/catalogue.py import i18n_pending/*.json   # merge new texts
    .venv/bin/python scripts/catalogue.py check                        # every language complete?
    .venv/bin/python scripts/catalogue.py page-json                    # regenerate the page's JSON
    .venv/bin/python scripts/catalogue.py tables /work/other-branch    # old-style tables not yet merged?

A pending file holds new or changed texts in every language:
    {"engine"|"companion"|"page": {"key": {"en": "...", "de": "...", "fr": "...", "it": "...", "nl": "..."}}}
`import` refuses the whole batch (and writes nothing) if an entry lacks a language or its
placeholders differ between languages; run twice, it changes nothing the second time.
docs/languages.md explains the catalogue.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import re
import string
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.messages import LANGUAGES  # noqa: E402

# room -> (folder holding locale/, domain); the PO file is <folder>/locale/<lang>/LC_MESSAGES/<domain>.po
ROOMS = {"engine": ("engine", "engine"), "companion": ("companion", "companion"), "page": ("companion", "page")}
PAGE_JSON = Path("companion/web/static/texts")
KEY = re.compile(r"^[A-Za-z0-9_.-]+$")
HEADER = ("dogtable: the {room} texts in one language. msgid is a stable key: edit only msgstr.\n"
          "How to fix a word or add a language: docs/languages.md")


class Refused(Exception):
    """A pending file or catalogue that cannot be used; the message says what to fix."""


def po_path(root: Path, room: str, lang: str) -> Path:
    folder, domain = ROOMS[room]
    return root / folder / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"


def placeholders(text: str) -> set[str]:
    """The `{name}` fields of a sentence; raises ValueError for a broken one ("{", "}")."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def read_catalogue(root: Path, room: str, lang: str) -> Catalog | None:
    path = po_path(root, room, lang)
    if not path.exists():
        return None
    with path.open("rb") as fh:
        return read_po(fh, locale=lang, domain=ROOMS[room][1])


def texts(root: Path, room: str) -> dict[str, dict[str, str]]:
    """{lang: {key: sentence}} for one room (empty sentences included, as ""); missing files -> {}."""
    out: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        cat = read_catalogue(root, room, lang)
        out[lang] = {} if cat is None else {str(m.id): str(m.string or "") for m in cat if m.id}
    return out


# --- import ---------------------------------------------------------------------------------
def validate_pending(data: object, source: str) -> list[str]:
    """Every problem of one pending file, each a line naming file, room, key and what is wrong."""
    if not isinstance(data, dict):
        return [f"{source}: the top level must be an object like {{\"engine\": {{...}}}}"]
    problems = []
    for room, entries in data.items():
        if room not in ROOMS:
            problems.append(f"{source}: '{room}' is not a room (choose {', '.join(ROOMS)})")
            continue
        if not isinstance(entries, dict):
            problems.append(f"{source}: {room} must map keys to {{language: text}}")
            continue
        for key, langs in entries.items():
            where = f"{source}: {room}.{key}"
            if not KEY.match(key):
                problems.append(f"{where}: a key may hold only letters, digits, '_', '.' and '-'")
                continue
            if not isinstance(langs, dict):
                problems.append(f"{where}: must map each language to its text")
                continue
            missing = [lang for lang in LANGUAGES if lang not in langs]
            extra = sorted(set(langs) - set(LANGUAGES))
            if missing:
                problems.append(f"{where}: missing {', '.join(missing)} (every text needs all of {', '.join(LANGUAGES)})")
            if extra:
                problems.append(f"{where}: {', '.join(extra)} is not a catalogue language ({', '.join(LANGUAGES)})")
            fields = {}
            for lang in LANGUAGES:
                text = langs.get(lang)
                if lang not in langs:
                    continue
                if not isinstance(text, str) or not text.strip():
                    problems.append(f"{where}.{lang}: the text is empty or not a string")
                    continue
                try:
                    fields[lang] = placeholders(text)
                except ValueError as exc:
                    problems.append(f"{where}.{lang}: broken placeholder ({exc}); write {{name}}, or {{{{ for a brace")
            if "en" in fields:
                for lang, names in fields.items():
                    if names != fields["en"]:
                        problems.append(f"{where}.{lang}: placeholders {sorted(names)} differ from English {sorted(fields['en'])}")
    return problems


def load_pending(files: list[Path]) -> list[dict]:
    batches, problems = [], []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{path}: cannot be read as JSON ({exc})")
            continue
        problems += validate_pending(data, str(path))
        batches.append(data)
    if problems:
        raise Refused("\n".join(problems + ["nothing was written: fix the lines above and run the import again"]))
    return batches


def new_catalogue(room: str, lang: str) -> Catalog:
    now = datetime.now(timezone.utc)
    cat = Catalog(locale=lang, domain=ROOMS[room][1], project="dogtable", version="1",
                  msgid_bugs_address="the dogtable project", last_translator="dogtable contributors",
                  language_team=f"dogtable {lang}", creation_date=now, revision_date=now, fuzzy=False)
    cat.header_comment = "\n".join("# " + line for line in HEADER.format(room=room).splitlines())
    return cat


def write_catalogue(root: Path, room: str, lang: str, cat: Catalog) -> None:
    buf = io.BytesIO()
    # width=0: one line per sentence, so a changed word is a one-line diff
    write_po(buf, cat, width=0, no_location=True, sort_output=True, include_lineno=False)
    path = po_path(root, room, lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())


def import_pending(root: Path, files: list[Path]) -> dict[str, int]:
    """Merge pending texts into the PO files; returns counts of added/changed/unchanged texts."""
    batches = load_pending(files)
    counts = {"added": 0, "changed": 0, "unchanged": 0}
    touched_page = False
    for room in ROOMS:
        merged: dict[str, dict[str, str]] = {}
        for data in batches:
            merged.update(data.get(room, {}))
        if not merged:
            continue
        for lang in LANGUAGES:
            cat = read_catalogue(root, room, lang) or new_catalogue(room, lang)
            dirty = False
            for key, langs in merged.items():
                old = cat.get(key)
                if old is None:
                    cat.add(key, langs[lang])
                    counts["added"] += 1
                elif old.string != langs[lang] or old.fuzzy:
                    old.string = langs[lang]
                    old.flags.discard("fuzzy")
                    counts["changed"] += 1
                else:
                    counts["unchanged"] += 1
                    continue
                dirty = True
            if dirty:
                cat.revision_date = datetime.now(timezone.utc)
                write_catalogue(root, room, lang, cat)
                touched_page |= room == "page"
    if touched_page:
        write_page_json(root)
    return counts


# --- check ----------------------------------------------------------------------------------
def check(root: Path) -> list[str]:
    """Every way the languages differ from English: keys, placeholders, empty or fuzzy texts."""
    problems = []
    for room in ROOMS:
        if read_catalogue(root, room, "en") is None:
            problems.append(f"{room}: {po_path(root, room, 'en')} is missing")
            continue
        english = texts(root, room)["en"]
        for lang in LANGUAGES:
            cat = read_catalogue(root, room, lang)
            if cat is None:
                problems.append(f"{room}/{lang}: {po_path(root, room, lang)} is missing")
                continue
            got = {str(m.id): m for m in cat if m.id}
            for key in sorted(set(english) - set(got)):
                problems.append(f"{room}/{lang}: '{key}' is missing")
            for key in sorted(set(got) - set(english)):
                problems.append(f"{room}/{lang}: '{key}' is not in English")
            for key in sorted(set(got) & set(english)):
                text = str(got[key].string or "")
                if not text:
                    problems.append(f"{room}/{lang}: '{key}' is empty")
                    continue
                if got[key].fuzzy:
                    problems.append(f"{room}/{lang}: '{key}' is marked fuzzy (check it, then remove the flag)")
                try:
                    mine, theirs = placeholders(text), placeholders(english[key])
                except ValueError as exc:
                    problems.append(f"{room}/{lang}: '{key}' has a broken placeholder ({exc})")
                    continue
                if mine != theirs:
                    problems.append(f"{room}/{lang}: '{key}' has placeholders {sorted(mine)}, English {sorted(theirs)}")
    return problems


# --- page JSON ------------------------------------------------------------------------------
def page_json(root: Path) -> dict[str, str]:
    """File name -> content of the page's generated texts (one per language, and the list)."""
    page = texts(root, "page")
    files = {f"{lang}.json": _dump(page[lang]) for lang in LANGUAGES}
    names = {lang: page[lang].get("language_name", lang) for lang in LANGUAGES}
    files["languages.json"] = _dump({"languages": list(LANGUAGES), "names": names})
    return files


def write_page_json(root: Path) -> None:
    folder = root / PAGE_JSON
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in page_json(root).items():
        (folder / name).write_text(content, encoding="utf-8")


def _dump(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# --- the tables the catalogue replaced -------------------------------------------------------
TABLES = {"engine": "engine/messages.py", "companion": "companion/texts.py", "page": "companion/web/static/app.js"}
JS_ENTRY = re.compile(r'(\w+): "((?:[^"\\]|\\.)*)"')


def old_tables(tree: Path, room: str) -> dict[str, dict[str, str]]:
    """{lang: {key: text}} from a checkout whose file still holds the hand-written table (else {})."""
    path = tree / TABLES[room]
    if not path.exists():
        return {}
    source = path.read_text(encoding="utf-8")
    if room == "page":  # const T = { en: { key: "text", ... }, de: { ... } };
        block = re.search(r"const T = \{(.*?)\n\};", source, re.S)
        if not block:
            return {}
        parts = re.split(r"^  (\w\w): \{", block.group(1), flags=re.M)[1:]
        return {lang: {k: json.loads(f'"{v}"') for k, v in JS_ENTRY.findall(body)} for lang, body in zip(parts[::2], parts[1::2])}
    for node in ast.walk(ast.parse(source)):
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "TEXT":
            return ast.literal_eval(node.value)
    return {}


def compare_tables(root: Path, tree: Path) -> list[str]:
    """What another checkout's old tables (en, de) say that the catalogue does not (yet)."""
    lines = []
    for room in ROOMS:
        old, now = old_tables(tree, room), texts(root, room)
        english = old.get("en", {})
        for key in sorted(set(english) - set(now["en"])):
            lines.append(f"{room}.{key}: not in the catalogue (en: {english[key]!r})")
        for key in sorted(set(english) & set(now["en"])):
            if english[key] != now["en"][key]:
                lines.append(f"{room}.{key}: English differs: table {english[key]!r}, catalogue {now['en'][key]!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    imp = sub.add_parser("import", help="merge pending JSON texts into the PO files")
    imp.add_argument("files", nargs="+", type=Path)
    sub.add_parser("check", help="report missing/extra keys and placeholder mismatches")
    sub.add_parser("page-json", help=f"regenerate {PAGE_JSON}/*.json from page.po")
    tab = sub.add_parser("tables", help="list texts another checkout's old tables hold that the catalogue lacks")
    tab.add_argument("tree", type=Path, help="the other checkout, e.g. /work/i11-black")
    ap.add_argument("--root", type=Path, default=ROOT, help="the project folder (default: this checkout)")
    args = ap.parse_args(argv)
    if args.cmd == "import":
        try:
            counts = import_pending(args.root, args.files)
        except Refused as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"imported: {counts['added']} added, {counts['changed']} changed, {counts['unchanged']} unchanged "
              f"(texts x languages)")
        problems = check(args.root)
    elif args.cmd == "check":
        problems = check(args.root)
    elif args.cmd == "tables":
        lines = compare_tables(args.root, args.tree)
        print("\n".join(lines) if lines else f"{args.tree}: every table text is in the catalogue")
        return 1 if lines else 0
    else:
        write_page_json(args.root)
        print(f"wrote {len(LANGUAGES) + 1} files in {PAGE_JSON}")
        return 0
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problems", file=sys.stderr)
        return 1
    sizes = ", ".join(f"{room} {len(texts(args.root, room)['en'])} keys" for room in ROOMS)
    print(f"catalogue complete: {sizes}, in {', '.join(LANGUAGES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
