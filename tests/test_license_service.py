"""kvdata.licenses.service: ScanCode's index is loaded once per build, by the service, never by a worker.

Each check runs in a fresh interpreter (a pytest process may already hold a loaded index, which a
forked child would inherit) and observes what each process did: whether its index was loaded, and
the log line ``ScanCode license index loaded`` every load writes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HEADERS = {
    "mit": "# Copyright (c) 2021 Someone\n#\n# Permission is hereby granted, free of charge, to any person obtaining a "
           "copy\n# of this software and associated documentation files (the \"Software\"), to deal\n# in the "
           "Software without restriction, including without limitation the rights\n# to use, copy, modify, merge, "
           "publish, distribute, sublicense, and/or sell\n# copies of the Software, and to permit persons to whom "
           "the Software is\n# furnished to do so, subject to the following conditions:\n#\n# The above copyright "
           "notice and this permission notice shall be included in\n# all copies or substantial portions of the "
           "Software.\n",
    "gpl": "# This program is free software; you can redistribute it and/or modify\n# it under the terms of the "
           "GNU General Public License as published by\n# the Free Software Foundation; either version 2 of the "
           "License, or\n# (at your option) any later version.\n",
    "spdx": "// SPDX-License-Identifier: MIT OR Apache-2.0\n",
}


def _run(script: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env={**os.environ, **(env or {})})


CHILD_ASKS = r"""
import json, multiprocessing, os, sys
from kvdata.licenses import scancode, service

headers = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.loads(os.environ["HEADERS"])

def child(queue):
    found = {k: [n.expression for n in scancode.find_notices(t, header=True)] for k, t in headers.items()}
    queue.put((found, scancode._index.cache_info().currsize))

with service.NoticeService() as svc:
    queue = multiprocessing.get_context("fork").Queue()
    p = multiprocessing.get_context("fork").Process(target=child, args=(queue,))
    p.start()
    found, child_loaded = queue.get(timeout=240)
    p.join()
    parent_loaded = scancode._index.cache_info().currsize
service.attach(None)
local = {k: [n.expression for n in scancode.match_text(scancode.without_copyright_lines(t), False)]
         for k, t in headers.items()}
print(json.dumps({"found": found, "child_loaded": child_loaded, "parent_loaded": parent_loaded, "local": local}))
"""


def test_a_worker_gets_the_services_answer_and_loads_no_index():
    """A forked process attached to the service gets exactly what in-process matching gives, and neither it nor
    the process that started the service loads ScanCode's index."""
    proc = _run(CHILD_ASKS, env={"HEADERS": json.dumps(HEADERS), "KVDATA_LICENSE_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["found"] == got["local"]
    assert got["found"]["mit"] == ["MIT"] and got["found"]["spdx"] == ["MIT OR Apache-2.0"]
    assert got["child_loaded"] == 0 and got["parent_loaded"] == 0


GONE = r"""
import json, logging, os
logging.basicConfig(level=logging.WARNING)
from kvdata.licenses import scancode, service
svc = service.NoticeService()
os.kill(svc.pid, 9)
svc._process.join()
text = json.loads(os.environ["HEADERS"])["gpl"]
print(json.dumps([n.expression for n in scancode.find_notices(text, header=True)]))
svc.close()
"""


def test_a_dead_service_costs_speed_not_results():
    """When the service is gone, a process matches for itself (with a warning) and gets the right notices."""
    proc = _run(GONE, env={"HEADERS": json.dumps(HEADERS), "KVDATA_LICENSE_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == ["GPL-2.0-or-later"]
    assert "license service unavailable" in proc.stderr


BUILD = r"""
import json, logging, sys
sys.path.insert(0, "scripts")
logging.basicConfig(level=logging.INFO, format="%(process)d %(name)s: %(message)s")
import bench_build
from kvdata.pipeline import build
corpus = json.loads(sys.argv[1])
result = build(bench_build.build_config(corpus, int(sys.argv[2])), sys.argv[3], progress=False)
print(json.dumps(result.accounting["totals"]))
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bench_build
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    folder = tmp_path_factory.mktemp("corpus")
    made = bench_build.write_corpus(folder / "raw", 300, header_share=0.5)
    return folder, made


def _build(corpus, workers: int, cache: Path, out: Path) -> tuple[dict, int]:
    _, made = corpus
    proc = subprocess.run([sys.executable, "-c", BUILD, json.dumps(made), str(workers), str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "KVDATA_CACHE": str(cache), "TQDM_DISABLE": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr.count("ScanCode license index loaded")


def test_a_cold_build_with_workers_loads_the_index_once(corpus, tmp_path):
    """Workers and the main process ask the service: one load per cold build (the main process and each worker
    meeting new headers used to load it three times), none for a rebuild on a warm cache, and the rows and
    licenses equal the in-process build's."""
    import pyarrow.parquet as pq

    totals, loads = _build(corpus, 2, tmp_path / "cache", tmp_path / "w2")
    assert loads == 1 and totals["input"] == 300
    again, loads_warm = _build(corpus, 2, tmp_path / "cache", tmp_path / "w2b")
    assert loads_warm == 0 and again == totals
    alone, loads_alone = _build(corpus, 0, tmp_path / "cache", tmp_path / "w0")
    assert loads_alone == 0 and alone == totals

    def rows(out):
        return sorted((r["id"], r["license"], r["license_source"]) for config in ("triton", "hip_cudaagent")
                      for r in pq.read_table(out / "data" / config, columns=["id", "license", "license_source"]).to_pylist())
    assert rows(tmp_path / "w2") == rows(tmp_path / "w0")
    assert {license for _, license, _ in rows(tmp_path / "w2")} >= {"MIT", "Apache-2.0", "MIT OR Apache-2.0"}


def test_the_service_ends_with_a_build_killed_outright():
    """A build killed with SIGKILL cannot stop its service: the service notices its parent is gone and exits."""
    import signal
    import time

    script = ("import os, sys, time\nfrom kvdata.licenses import service\nsvc = service.NoticeService()\n"
              "print(svc.pid, flush=True)\ntime.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    service_pid = int(proc.stdout.readline())
    os.kill(service_pid, 0)                      # alive while the build is
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for _ in range(100):
        try:
            os.kill(service_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the license service {service_pid} outlived its killed build")


def test_an_error_in_the_service_is_raised_where_it_was_asked():
    """Matching that raises in the service raises in the asking process (as it would have there), rather than
    passing for an unreachable service, which would make every worker load the index after all."""
    from kvdata.licenses import service

    with service.NoticeService():
        with pytest.raises(service.MatchFailed, match="not a license request"):
            service.ask("not a request")
    assert service.attached() is None
