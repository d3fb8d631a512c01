"""Records kube-apiserver's answers to tests/apply_configuration_steps.py (MutatingAdmissionPolicy
`patchType: ApplyConfiguration`) as tests/fixtures/mutating_apply_configuration.json.

    KUBECONFIG_PATH=$(/work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-map)
    python3 tools/capture_apply_configuration.py "$KUBECONFIG_PATH"
    /work/shared/reference/stop.sh ~/ref-run-map
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import apply_configuration_steps as steps


def main(kubeconfig: str) -> None:
    steps.apply_manifest(kubeconfig)
    steps.FIXTURE.write_text(json.dumps(steps.run_steps(kubeconfig), indent=1) + "\n")
    print(f"recorded {steps.FIXTURE}")


if __name__ == "__main__":
    main(sys.argv[1])
