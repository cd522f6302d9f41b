"""The committed Python code is what the Thrift compiler makes of compute.thrift today, and
the runtime is the one with the C-accelerated binary protocol."""

from __future__ import annotations

import filecmp
import subprocess
from pathlib import Path

from thrift.protocol import TBinaryProtocol
from thrift.transport import TTransport

GENERATED = (
    "services/compute/src/compute_service/computeidl",
    "services/entryeditor/src/entryeditor_service/compute/computeidl",
)


def test_generated_code_matches_the_idl(project_root: Path, tmp_path: Path) -> None:
    script = project_root / "services/compute/scripts/thrift-gen.sh"
    subprocess.run([str(script), str(tmp_path)], check=True)
    for directory in GENERATED:
        fresh = sorted(path.name for path in (tmp_path / directory).iterdir())
        committed = sorted(path.name for path in (project_root / directory).glob("*.py"))
        assert fresh == committed
        _, mismatch, errors = filecmp.cmpfiles(
            tmp_path / directory, project_root / directory, fresh, shallow=False
        )
        assert (mismatch, errors) == ([], []), f"{directory}: regenerate with {script}"


def test_binary_protocol_is_accelerated() -> None:
    """fallback=False (as the server and clients use it) fails instead of quietly encoding
    in pure Python when the C extension is missing."""
    from thrift.protocol import fastbinary  # the C extension built with the wheel

    transport = TTransport.TFramedTransport(TTransport.TMemoryBuffer())
    factory = TBinaryProtocol.TBinaryProtocolAcceleratedFactory(fallback=False)
    protocol = factory.getProtocol(transport)
    assert protocol._fast_encode is fastbinary.encode_binary
    assert isinstance(transport, TTransport.CReadableTransport)
