"""UUID v7 ids: format, order, uniqueness across random batches, threads and forks."""

from __future__ import annotations

import os
import threading
import time
import uuid

from awaken_contract.ids import new_id


def test_ids_are_uuid_v7_and_unique_across_many_batches() -> None:
    ids = [new_id() for _ in range(5000)]
    assert len(set(ids)) == len(ids)
    parsed = [uuid.UUID(i) for i in ids]
    assert all(u.version == 7 and u.variant == uuid.RFC_4122 for u in parsed)
    assert [i[:13] for i in ids] == sorted(i[:13] for i in ids)  # millisecond prefix ordered


def test_threads_never_share_an_id() -> None:
    found: list[list[str]] = [[] for _ in range(8)]

    def make(into: list[str]) -> None:
        into.extend(new_id() for _ in range(2000))

    threads = [threading.Thread(target=make, args=(bucket,)) for bucket in found]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for bucket in found for i in bucket]
    assert len(set(every)) == len(every)


def test_a_forked_child_does_not_reuse_the_parent_batch() -> None:
    new_id()  # the parent holds a partly used batch
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read)
        os.write(write, "\n".join(new_id()[-12:] for _ in range(8)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = set(pipe.read().split("\n"))
    os.waitpid(pid, 0)
    parent = {new_id()[-12:] for _ in range(8)}
    assert not child & parent


def test_the_prefix_is_the_unix_millisecond_of_creation() -> None:
    before = time.time_ns() // 1_000_000
    made = uuid.UUID(new_id())
    after = time.time_ns() // 1_000_000
    assert before <= int(made.hex[:12], 16) <= after


def test_every_random_digit_varies_and_the_fixed_ones_do_not() -> None:
    ids = [new_id() for _ in range(3000)]
    seen: list[set[str]] = [set() for _ in range(36)]
    for value in ids:
        for position, char in enumerate(value):
            seen[position].add(char)
    assert all(seen[p] == {"-"} for p in (8, 13, 18, 23))
    assert seen[14] == {"7"}  # version
    assert seen[19] == set("89ab")  # RFC 4122 variant, two random bits
    for position in range(24, 36):  # rand_b: every hex digit shows up
        assert seen[position] == set("0123456789abcdef"), position
    for position in (15, 16, 17, 20, 21, 22):
        assert seen[position] == set("0123456789abcdef"), position
