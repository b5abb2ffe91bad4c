"""The store conformance suite (``pip install awaken-contract[testing]``).

Each contract is a pytest class whose tests use a ``store`` fixture. Subclass it with a name
starting with ``Test`` and provide the fixture::

    import pytest
    from awaken_contract.testing import ThreadRunStoreContract

    class TestMyStore(ThreadRunStoreContract):
        @pytest.fixture
        async def store(self):
            return MyStore()

Run with ``asyncio_mode = "auto"`` (pytest-asyncio) so async fixtures work.
"""

from awaken_contract.testing.builders import (
    Unencodable,
    make_job,
    make_run,
    make_thread,
    poisoned_run,
)
from awaken_contract.testing.config_store import ConfigStoreContract
from awaken_contract.testing.job_checkpoints import JobCheckpointStoreContract
from awaken_contract.testing.journal import JournaledStoreContract, sample_records
from awaken_contract.testing.mailbox_store import MailboxStoreContract
from awaken_contract.testing.profile_store import ProfileStoreContract
from awaken_contract.testing.run_store import (
    CheckpointContract,
    RunStoreContract,
    ThreadRunStoreContract,
)
from awaken_contract.testing.thread_store import ThreadStoreContract

__all__ = [
    "CheckpointContract",
    "ConfigStoreContract",
    "JobCheckpointStoreContract",
    "JournaledStoreContract",
    "MailboxStoreContract",
    "ProfileStoreContract",
    "RunStoreContract",
    "ThreadRunStoreContract",
    "ThreadStoreContract",
    "Unencodable",
    "make_job",
    "make_run",
    "make_thread",
    "poisoned_run",
    "sample_records",
]
