"""python -m estimation.core.contract: regenerate docs/snapshot.schema.json and
docs/snapshot-contract.md."""

from estimation.core.contract.schema import main

main()
