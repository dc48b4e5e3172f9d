# Writes random notebooks and random edits of them, each with the bytes
# Jupyter (nbformat's writer: json.dumps(nb, sort_keys=True, indent=1,
# ensure_ascii=False) and a final newline; sources cut with splitlines)
# saves for the edited notebook, as JSON lines on stdout, for
# TestJupyterParity. Usage: python3 jupyter_cases.py SEED COUNT
import json, random, sys

rng = random.Random(int(sys.argv[1]))
PIECES = ["x = 1", "print('hi')", "é ü ß", "a\tb", 'say "hi"', "back\\slash", "<b>&amp;</b>",
          "\u2028sep", "cr\rlf", "dos\r\n", "\x0bvt", "\x7f", "emoji 🙂", "", " ", "#", "\x01ctl"]

def text():
    return "".join(rng.choice(PIECES) + rng.choice(["\n", "", "\n\n", " "]) for _ in range(rng.randint(0, 4)))

def write(nb):
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"

def lines(s):
    return s.splitlines(True)

def cell(typ, ids, i):
    c = {"cell_type": typ, "metadata": {}, "source": lines(text())}
    if ids:
        c["id"] = "c%07d" % i
    if typ == "code":
        c["execution_count"] = rng.choice([None, rng.randint(1, 99)])
        c["outputs"] = rng.choice([[], [{"name": "stdout", "output_type": "stream", "text": lines(text())}],
                                   [{"data": {"text/plain": ["42"], "image/png": "iVBORw0KGgo="}, "execution_count": 3,
                                     "metadata": {}, "output_type": "execute_result"}],
                                   [{"ename": "ValueError", "evalue": "bad", "output_type": "error",
                                     "traceback": ["\u001b[0;31mValueError\u001b[0m: bad"]}]])
    if typ == "markdown" and rng.random() < 0.2:
        c["attachments"] = {"a.png": {"image/png": "iVBOR"}}
    return c

for case in range(int(sys.argv[2])):
    ids = rng.random() < 0.7
    n = rng.randint(0, 5)
    nb = {"cells": [cell(rng.choice(["code", "markdown", "raw"]), ids, i) for i in range(n)],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5 if ids else 4}
    before = write(nb)
    ops = ["insert"] + (["replace", "delete"] if n else [])
    op = rng.choice(ops)
    src = text()
    edit = {"op": op, "source": src}
    if op == "insert":
        at = rng.randint(0, n)
        typ = rng.choice(["code", "markdown", "raw"])
        new = {"cell_type": typ, "metadata": {}, "source": lines(src)}
        if ids:
            new["id"] = "n%07d" % case
            edit["id"] = new["id"]
        if typ == "code":
            new["execution_count"] = None
            new["outputs"] = []
        nb["cells"].insert(at, new)
        edit.update(at=at, type=typ)
    elif op == "delete":
        at = rng.randrange(n)
        del nb["cells"][at]
        edit.update(at=at)
    else:
        at = rng.randrange(n)
        c = nb["cells"][at]
        typ = rng.choice(["", "", "code", "markdown", "raw"])
        c["source"] = lines(src)
        if typ and typ != c["cell_type"]:
            if typ != "code":
                c.pop("outputs", None)
                c.pop("execution_count", None)
            else:
                c.pop("attachments", None)
                c["execution_count"] = None
                c["outputs"] = []
            c["cell_type"] = typ
        edit.update(at=at, type=typ)
    print(json.dumps({"before": before, "edit": edit, "after": write(nb)}))
