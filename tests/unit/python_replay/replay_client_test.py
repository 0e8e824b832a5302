#!/usr/bin/python3
"""The Python replay client's wire layout and retries, against fake shards
that decode requests as docs/replay.md lays them out (no UCX, no server):
the caller block, insert's seq kept across a re-send after a restart,
not_ready answered by asking again, sample and info replies read back,
server_info summed over the shards, keys routed to their shard, leases
acked and nacked with their tokens, the lease journal a relaunched task
returns its predecessor's leases from, Queue's Empty. The real server is
exercised by integration:replay_python:client. Usage:
replay_client_test.py SOURCE_DIR"""
import os
import pickle
import struct
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(sys.argv.pop(1) if len(sys.argv) > 1 else ".", "python"))
from slipway import _replay_journal, _replay_pool, courier, replay  # noqa: E402


class Request:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        value = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return value[0]

    def text(self):
        n = self.take("H")
        self.at += n
        return self.data[self.at - n:self.at].decode()

    def blob(self):
        n = self.take("I")
        self.at += n
        return self.data[self.at - n:self.at]


def text(s):
    return struct.pack("<H", len(s)) + s.encode()


class FakeShard:
    """One shard: a list of (key, data) per table; `script` may hold
    CourierErrors or the byte 1 (not_ready) to answer the next calls with."""

    def __init__(self, shard):
        self.shard, self.items, self.seen, self.script, self.next_key = shard, {}, [], [], 1
        self.by_seq = {}
        self.leases = {}  # key -> token of its current lease (table "jobs")

    def call(self, method, data, timeout=None):
        request = Request(data)
        caller = (request.take("B"), request.take("Q"), request.take("I"), request.take("I"), request.text())
        self.seen.append((method, caller))
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step
        return getattr(self, method)(request, caller)

    def insert(self, r, caller):
        seq, _wait, count = r.take("Q"), r.take("I"), r.take("I")
        if (caller[1], seq) in self.by_seq:
            keys = self.by_seq[(caller[1], seq)]
        else:
            keys = []
            for _ in range(count):
                data, tables = r.blob(), r.take("H")
                key = (self.shard << 48) | self.next_key
                self.next_key += 1
                for _ in range(tables):
                    table, _priority = r.text(), r.take("d")
                    self.items.setdefault(table, []).append((key, data))
                keys.append(key)
            self.by_seq[(caller[1], seq)] = keys
        return b"\0" + struct.pack("<I", len(keys)) + b"".join(struct.pack("<Q", k) for k in keys)

    def sample(self, r, _caller):
        table, n, _min_n, _wait = r.text(), r.take("I"), r.take("I"), r.take("I")
        if table not in ("t", "q"):
            return b"\2" + text("table '%s' is unknown" % table)
        items = self.items.get(table, [])
        if not items:
            return b"\1"
        out = items[:n]
        if table == "q":
            del items[:len(out)]
        return b"\0" + struct.pack("<I", len(out)) + b"".join(
            struct.pack("<QddQI", k, 1.0, 1.0 / len(items or out), len(items or out), 1) +
            struct.pack("<I", len(d)) + d for k, d in out)

    def mutate(self, r, _caller):
        table, updates = r.text(), r.take("I")
        for _ in range(updates):
            r.take("Q"), r.take("d")
        deletes = [r.take("Q") for _ in range(r.take("I"))]
        before = len(self.items.get(table, []))
        self.items[table] = [(k, d) for k, d in self.items.get(table, []) if k not in deletes]
        return b"\0" + struct.pack("<II", updates, before - len(self.items[table]))

    def close(self):
        pass

    def call_async(self, method, data, timeout=None):
        try:
            return Done(self.call(method, data, timeout))
        except courier.CourierError as error:
            return Failed(error)

    def lease(self, r, _caller):
        table, n, _wait = r.text(), r.take("I"), r.take("I")
        queued = [(k, d) for k, d in self.items.get(table, []) if k not in self.leases][:n]
        if not queued:
            return b"\1"
        out = b""
        for key, data in queued:
            self.leases[key] = os.urandom(16)
            out += struct.pack("<QI", key, 1) + self.leases[key] + struct.pack("<I", len(data)) + data
        return b"\0" + struct.pack("<I", len(queued)) + out

    def _leases(self, r):
        table, n = r.text(), r.take("I")
        refs = []
        for _ in range(n):
            key = r.take("Q")
            r.at += 16
            refs.append((key, r.data[r.at - 16:r.at]))
        return table, refs

    def ack(self, r, _caller):
        table, refs = self._leases(r)
        done = [k for k, t in refs if self.leases.get(k) == t]
        for key in done:
            del self.leases[key]
        self.items[table] = [(k, d) for k, d in self.items.get(table, []) if k not in done]
        return b"\0" + struct.pack("<I", len(done))

    def nack(self, r, _caller):
        _table, refs = self._leases(r)
        done = [k for k, t in refs if self.leases.get(k) == t]
        for key in done:
            del self.leases[key]
        return b"\0" + struct.pack("<I", len(done))

    def info(self, r, _caller):
        head = struct.pack("<IIQQQ", self.shard, 0, 0, 1 << 33, 1 << 26) + text("") + struct.pack("<I", 1)
        table = (text("t") + struct.pack("<BBdBd", 0, 5, 0.6, 1, 0.0) +
                 struct.pack("<QIQQdqddqqqIIQ", 1000, 0, len(self.items.get("t", [])), 0, 1.0, 1,
                             -1e308, 1e308, 3, 2, 1, 0, 0, 0))
        return b"\0" + head + table


class FakeEndpoint:
    def __init__(self, shards):
        self.shards = shards
        self.reported = []  # (address, method, data) of calls to connected endpoints
        self.address = b"caller-address"

    def resolve_all(self, node, timeout=None):
        return self.shards

    def connect(self, address, label=""):
        endpoint = self

        class Caller:
            def call(self, method, data, timeout=None):
                endpoint.reported.append((address, method, data))
                return b""
        return Caller()


class ClientTest(unittest.TestCase):
    def setUp(self):
        os.environ.update({"SLIPWAY_NODE": "actor", "SLIPWAY_REPLICA": "3", "SLIPWAY_ATTEMPT": "2",
                           "SLIPWAY_TOKEN": "the program's secret"})
        self.shards = [FakeShard(0), FakeShard(1)]
        self.rb = replay.Client("replay", endpoint=FakeEndpoint(self.shards))

    def test_caller_block_names_this_task(self):
        self.rb.insert(b"x", {"t": 1.0})
        version, client_id, replica, attempt, node = self.shards[0].seen[0][1]
        self.assertEqual((version, replica, attempt, node), (2, 3, 2, "actor"))
        self.assertNotEqual(client_id, 0)

    def test_inserts_alternate_shards_and_keys_carry_them(self):
        keys = [self.rb.insert(b"x%d" % i, {"t": 1.0}) for i in range(4)]
        self.assertEqual(sorted(k >> 48 for k in keys), [0, 0, 1, 1])

    def test_insert_resent_after_restart_keeps_its_seq(self):
        self.shards[0].script = [courier.CourierError("peer_restarted", "restarted")]
        key = self.rb.insert(b"once", {"t": 1.0})
        self.assertEqual(len(self.shards[0].items["t"]), 1)
        self.assertEqual(key >> 48, 0)
        self.assertEqual([m for m, _ in self.shards[0].seen], ["insert", "insert"])

    def test_not_ready_is_asked_again(self):
        self.rb.insert(b"a", {"t": 1.0})
        for shard in self.shards:
            shard.script = [b"\1"]
        samples = self.rb.sample("t", n=1, timeout=10)
        self.assertEqual(samples[0].data, b"a")
        self.assertEqual(samples[0].times_sampled, 1)

    def test_sample_gathers_n_over_shards(self):
        self.rb.insert_many([b"a", b"b"], {"t": [1.0, 2.0]})
        self.rb.insert_many([b"c"], {"t": 3.0})
        samples = self.rb.sample("t", n=5, timeout=10)
        self.assertEqual(len(samples), 5)
        self.assertTrue(all(isinstance(s, replay.Sample) for s in samples))

    def test_sample_times_out(self):
        with self.assertRaises(replay.ReplayTimeout):
            self.rb.sample("t", n=1, timeout=0.2)

    def test_service_errors_carry_their_message(self):
        with self.assertRaises(replay.ReplayError) as caught:
            self.rb.sample("nope", n=1, timeout=1)
        self.assertEqual(caught.exception.code, "invalid")
        self.assertIn("'nope'", str(caught.exception))

    def test_a_call_that_cannot_be_retried_fails_at_once(self):
        self.shards[0].script = [courier.CourierError("no_such_method", "no such method")]
        self.shards[1].script = [courier.CourierError("no_such_method", "no such method")]
        with self.assertRaises(replay.ReplayError) as caught:
            self.rb.info()
        self.assertEqual(caught.exception.code, "no_such_method")

    def test_delete_goes_to_the_key_s_shard(self):
        keys = [self.rb.insert(b"x%d" % i, {"t": 1.0}) for i in range(4)]
        self.assertEqual(self.rb.delete("t", keys[:3]), 3)
        self.assertEqual(sum(len(s.items["t"]) for s in self.shards), 1)

    def test_info_reads_every_field(self):
        self.rb.insert(b"x", {"t": 1.0})
        info = self.rb.info()
        self.assertEqual([s.shard for s in info], [0, 1])
        table = info[0].tables["t"]
        self.assertEqual((table.kind, table.sampler, table.sampler_exponent, table.remover),
                         ("table", "prioritized", 0.6, "fifo"))
        self.assertEqual((table.max_size, table.inserts, table.samples, table.deletes), (1000, 3, 2, 1))
        self.assertEqual(self.rb.size("t"), 1)

    def test_server_info_maps_each_table_to_its_info_summed_over_shards(self):
        for i in range(3):
            self.rb.insert(b"x%d" % i, {"t": 1.0})
        info = self.rb.server_info()
        self.assertEqual(list(info), ["t"])
        table = info["t"]
        self.assertIsInstance(table, replay.TableInfo)
        self.assertEqual((table.name, table.kind, table.sampler, table.sampler_exponent),
                         ("t", "table", "prioritized", 0.6))
        self.assertEqual((table.size, table.current_size), (3, 3))  # 2 on shard 0, 1 on shard 1
        self.assertEqual((table.max_size, table.inserts, table.samples, table.deletes), (2000, 6, 4, 2))
        self.assertEqual((table.min_size_to_sample, table.max_times_sampled), (1, 0))  # as configured
        self.assertEqual(len(self.rb.info()), 2)  # info() keeps the per-shard shape

    def test_leases_are_acked_and_nacked_with_their_tokens(self):
        key = self.rb.insert(b"job", {"jobs": 1.0})
        leases = self.rb.lease("jobs", 4, timeout=5)
        self.assertEqual(len(leases), 1)
        lease = leases[0]
        self.assertIsInstance(lease, replay.Lease)
        self.assertEqual((lease.key, lease.times_leased, lease.data, len(lease.token)), (key, 1, b"job", 16))
        with self.assertRaises(replay.ReplayError) as caught:
            self.rb.ack("jobs", [key])  # a bare key has no token
        self.assertEqual(caught.exception.code, "invalid")
        self.assertEqual(self.rb.nack("jobs", [(key, b"\0" * 16)]), 0)  # a forged token frees nothing
        self.assertEqual(self.rb.nack("jobs", leases), 1)
        again = self.rb.lease("jobs", 1, timeout=5)
        self.assertEqual(self.rb.ack("jobs", [again[0]]), 1)
        self.assertEqual(self.rb.ack("jobs", [(again[0].key, again[0].token)]), 0)  # gone

    def test_a_relaunched_task_returns_its_predecessor_s_leases_from_the_journal(self):
        with tempfile.TemporaryDirectory() as run_dir:
            os.environ["SLIPWAY_RUN_DIR"] = run_dir
            try:
                key = self.rb.insert(b"job", {"jobs": 1.0})
                held = self.rb.lease("jobs", 1, timeout=5)  # attempt 2 of actor.3, then it dies
                journals = os.path.join(run_dir, "replay-leases", "replay")
                self.assertEqual(len(os.listdir(journals)), 1)
                self.assertEqual(os.stat(journals).st_mode & 0o777, 0o700)
                with self.assertRaises(replay.ReplayTimeout):
                    self.rb.lease("jobs", 1, timeout=0)  # still leased
                os.environ["SLIPWAY_ATTEMPT"] = "3"
                relaunched = replay.Client("replay", endpoint=FakeEndpoint(self.shards))
                got = relaunched.lease("jobs", 1, timeout=5)  # returned first, then leased again
                self.assertEqual([g.key for g in got], [key])
                self.assertNotEqual(got[0].token, held[0].token)
                self.assertEqual(relaunched.ack("jobs", got), 1)
                relaunched.close()
                self.assertEqual(os.listdir(journals), [])
            finally:
                del os.environ["SLIPWAY_RUN_DIR"]

    def test_lease_journal_lines_are_the_c_plus_plus_client_s(self):
        token = bytes(range(16))
        text = _replay_journal._LeaseJournal.format([(3, "a table", 9, token)])
        self.assertEqual(text, b"slipway-replay-leases 1\n"
                               b"3 9 000102030405060708090a0b0c0d0e0f 61207461626c65\n")
        self.assertEqual(_replay_journal._LeaseJournal.parse(text), [(3, "a table", 9, token)])
        self.assertEqual(_replay_journal._LeaseJournal.parse(text[:-1]), [])  # a line cut short by a crash

    def test_writer_pipelines_and_flushes(self):
        for shard in self.shards:
            shard.call_async = lambda method, data, timeout=None, s=shard: Done(s.call(method, data))
        with self.rb.writer("t", max_in_flight=2, batch_size=3) as writer:
            for i in range(10):
                writer.append(b"%d" % i)
        self.assertEqual(writer.keys_written, 10)
        self.assertEqual(sum(len(s.items["t"]) for s in self.shards), 10)

    def test_writer_resends_an_insert_whose_reply_was_lost(self):
        lost = [courier.CourierError("peer_lost", "the shard died")]

        def call_async(method, data, timeout=None, shard=self.shards[0]):
            if lost:
                return Failed(lost.pop())
            return Done(shard.call(method, data))
        self.shards[0].call_async = call_async
        self.shards[1].call_async = call_async
        with self.rb.writer("t", max_in_flight=1) as writer:
            writer.append(b"kept")
        self.assertEqual(writer.keys_written, 1)
        self.assertEqual(len(self.shards[0].items["t"]), 1)

    def test_writer_gives_up_on_an_error_it_cannot_retry(self):
        self.shards[0].call_async = lambda *a, **k: Failed(courier.CourierError("message_too_large", "big"))
        self.shards[1].call_async = self.shards[0].call_async
        writer = self.rb.writer("t")
        writer.append(b"x")
        with self.assertRaises(replay.ReplayError) as caught:
            writer.flush()
        self.assertEqual(caught.exception.code, "message_too_large")

    def test_a_pool_is_served_by_its_worker_node_only(self):
        pool = replay.Pool("replay", "jobs", worker_node="worker", endpoint=FakeEndpoint(self.shards))
        with self.assertRaises(replay.ReplayError) as caught:
            pool.serve({})  # this task is node "actor"
        self.assertIn("served by node 'worker'", str(caught.exception))

    def pool_with_tasks(self, *payloads):
        endpoint = FakeEndpoint(self.shards)
        pool = replay.Pool("replay", "jobs", endpoint=endpoint)
        pool._client.insert_many(list(payloads), {"jobs": 1.0})
        return pool, endpoint

    def test_a_pool_worker_drops_a_task_that_is_not_the_program_s_and_runs_on(self):
        signed = _replay_pool._sealed(_replay_pool._POOL_TASK, "jobs", ((1, 1), b"caller-address", "square", 7))
        pool, endpoint = self.pool_with_tasks(pickle.dumps(((1, 2), b"x", "square", 8)), signed)
        # Before: the unsigned task's PermissionError ended serve(), and the
        # relaunched worker leased it again until its retries ran out.
        self.assertEqual(pool.serve({"square": lambda x: x * x}, max_tasks=1), 1)
        self.assertEqual(len(endpoint.reported), 1)
        task_id, ok, value = _replay_pool._opened(_replay_pool._POOL_RESULT, _replay_pool._RESULT_METHOD,
                                                  endpoint.reported[0][2])
        self.assertEqual((task_id, ok, value), ((1, 1), True, 49))
        self.assertEqual(self.shards[0].items["jobs"], [])  # both acked: the dropped one too

    def test_a_pool_worker_waits_out_a_shard_restart(self):
        signed = _replay_pool._sealed(_replay_pool._POOL_TASK, "jobs", ((1, 1), b"caller-address", "square", 3))
        pool, endpoint = self.pool_with_tasks(signed)
        # Longer than a lease call's 1 s deadline: before, its ReplayError ended serve().
        for shard in self.shards:
            shard.script = [courier.CourierError("peer_lost", "restarting")] * 30
        self.assertEqual(pool.serve({"square": lambda x: x * x}, max_tasks=1), 1)
        self.assertEqual(len(endpoint.reported), 1)

    def test_a_pool_worker_told_to_stop_stops_while_a_shard_does_not_answer(self):
        pool, _ = self.pool_with_tasks()
        for shard in self.shards:
            shard.script = [courier.CourierError("peer_lost", "gone")] * 1000
        timer = threading.Timer(0.3, pool.stop)
        timer.start()
        started = time.monotonic()
        self.assertEqual(pool.serve({}), 0)
        self.assertLess(time.monotonic() - started, 0.9)  # before: each retry went on to its deadline
        timer.join()

    def test_a_pool_worker_told_to_stop_gives_up_a_call_its_stopped_shard_never_answers(self):
        pool, _ = self.pool_with_tasks()
        for shard in self.shards:  # a shard that stopped: calls wait out their courier timeout
            shard.call_async = lambda *a, **k: Pending()
            shard.call = lambda method, data, timeout=None: Pending().result(timeout)
        timer = threading.Timer(0.3, pool.stop)
        timer.start()
        started = time.monotonic()
        self.assertEqual(pool.serve({}), 0)
        # Within the lease wait (1 s) and the 0.5 s after it; before: the
        # call's margin (5 s) and more, past the launcher's grace.
        self.assertLess(time.monotonic() - started, 2.0)
        timer.join()

    def test_queue_pickles_and_raises_empty(self):
        os.environ["SLIPWAY_TOKEN"] = "the program's secret"
        q = replay.Queue("replay", "q", client=self.rb)
        q.put({"a": 1})
        self.assertEqual(q.get(timeout=5), {"a": 1})
        with self.assertRaises(replay.Empty):
            q.get(timeout=0)

    def test_queue_items_from_outside_the_program_are_never_unpickled(self):
        q = replay.Queue("replay", "q", client=self.rb)
        os.environ["SLIPWAY_TOKEN"] = "another program's secret"
        q.put({"a": 1})
        self.rb.insert(pickle.dumps({"b": 2}), {"q": 1.0})  # unsigned
        os.environ["SLIPWAY_TOKEN"] = "the program's secret"
        for _ in range(2):
            with self.assertRaises(PermissionError):
                q.get(timeout=5)


class Done:
    def __init__(self, value):
        self.value = value

    def done(self):
        return True

    def result(self, timeout=None):
        return self.value


class Pending:
    """A call its shard never answers."""

    def done(self):
        return False

    def result(self, timeout=None):
        time.sleep(timeout or 0)
        raise courier.CourierError("timeout", "not complete")


class Failed:
    def __init__(self, error):
        self.error = error

    def done(self):
        return True

    def result(self, timeout=None):
        raise self.error


if __name__ == "__main__":
    unittest.main(verbosity=1)
