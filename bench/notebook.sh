#!/usr/bin/env bash
# ws notebook and ws notebook-edit on a notebook of 200 cells with plots
# (about 20 MB, most of it base64 images), against what a Python tool does
# to show or change a cell: load the notebook with the json module, and
# write it back as Jupyter writes it (json.dumps(indent=1, sort_keys,
# ensure_ascii=False) and a newline). As whole processes with hyperfine
# (Debian package hyperfine). Also prints how much smaller ws's rendering
# is than the JSON a file read shows.
#   bench/notebook.sh            # RUNS=N to change the number of runs
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_build
bench_tmpfs_work
python3 - <<'PY'
import base64, json, random
random.seed(1)
cells = []
for i in range(200):
    if i % 4 == 0:
        cells.append({"cell_type": "markdown", "id": "m%05d" % i, "metadata": {}, "source": ["## Step %d\n" % i, "Some prose about it.\n"]})
        continue
    png = base64.b64encode(bytes(random.getrandbits(8) for _ in range(120_000))).decode()
    cells.append({"cell_type": "code", "execution_count": i, "id": "c%05d" % i, "metadata": {},
                  "outputs": [{"name": "stdout", "output_type": "stream", "text": ["loss %d: %f\n" % (j, random.random()) for j in range(30)]},
                              {"data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}, "metadata": {}, "output_type": "display_data"}],
                  "source": ["model.fit(x_%d)\n" % i, "plot(history)"]})
nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
open("nb.ipynb", "w").write(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
PY
cp nb.ipynb pristine.ipynb
cat > py_edit.py <<'PY'
import json, sys
nb = json.load(open("nb.ipynb", encoding="utf-8"))
nb["cells"][101]["source"] = "model.fit(x_101, epochs=3)\nplot(history)".splitlines(True)
open("nb.ipynb", "w", encoding="utf-8").write(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
PY
cat > py_show.py <<'PY'
import json
nb = json.load(open("nb.ipynb", encoding="utf-8"))
c = nb["cells"][101]
print("".join(c["source"]))
PY
hyperfine --warmup 2 --runs "${RUNS:-20}" --export-json "$OLDPWD/bench/out/notebook.json" \
  --prepare "cp pristine.ipynb nb.ipynb && rm -rf $WS_STATE_DIR" \
  -n 'ws notebook-edit' "$ws notebook-edit nb.ipynb --cell c00101 --source 'model.fit(x_101, epochs=3)
plot(history)'" \
  -n 'python json load+dump' 'python3 py_edit.py' \
  -n 'ws notebook --cell' "$ws notebook nb.ipynb --cell c00101" \
  -n 'python json load' 'python3 py_show.py' >/dev/null
python3 - "$OLDPWD/bench/out/notebook.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] * 1e3 for x in json.load(open(sys.argv[1]))["results"]}
print(", ".join(f"{k} {v:.1f} ms" for k, v in r.items()))
print(f"edit: ws / python = {r['ws notebook-edit'] / r['python json load+dump']:.2f}; show one cell: ws / python = {r['ws notebook --cell'] / r['python json load']:.2f}")
PY
"$ws" notebook-edit nb.ipynb --cell c00101 --source x >/dev/null
cmp -s nb.ipynb pristine.ipynb && echo "the edit changed nothing?" >&2
python3 py_edit.py 2>/dev/null || true
echo "sizes: the notebook $(wc -c < pristine.ipynb) bytes; ws notebook (whole, no budget) $(WS_CONFIG=<(echo '{"tools":{"notebook_read":{"maxOutputTokens":100000000}}}') "$ws" notebook pristine.ipynb | wc -c) bytes"
