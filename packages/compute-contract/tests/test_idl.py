"""The committed Python code is what the Thrift compiler makes of compute.thrift today, and
the runtime is the one with the C-accelerated binary protocol."""

from __future__ import annotations

import filecmp
import subprocess
from pathlib import Path

from thrift.protocol import TBinaryProtocol
from thrift.transport import TTransport

GENERATED = "packages/compute-contract/src/compute_contract/computeidl"


def test_generated_code_matches_the_idl(project_root: Path, tmp_path: Path) -> None:
    script = project_root / "scripts/thrift-gen.sh"
    subprocess.run([str(script), str(tmp_path)], check=True)
    fresh = sorted(path.name for path in (tmp_path / GENERATED).iterdir())
    committed = sorted(path.name for path in (project_root / GENERATED).glob("*.py"))
    assert fresh == committed
    _, mismatch, errors = filecmp.cmpfiles(
        tmp_path / GENERATED, project_root / GENERATED, fresh, shallow=False
    )
    assert (mismatch, errors) == ([], []), f"regenerate with {script}"


def test_binary_protocol_is_accelerated() -> None:
    """fallback=False (as the server and clients use it) fails instead of quietly encoding
    in pure Python when the C extension is missing."""
    from thrift.protocol import fastbinary  # the C extension built with the wheel

    transport = TTransport.TFramedTransport(TTransport.TMemoryBuffer())
    factory = TBinaryProtocol.TBinaryProtocolAcceleratedFactory(fallback=False)
    protocol = factory.getProtocol(transport)
    assert protocol._fast_encode is fastbinary.encode_binary
    assert isinstance(transport, TTransport.CReadableTransport)
