"""Exactly one memory job per finished run, after commit, calling the layers in order."""

import pytest

from agents import layers
from agents.models import Run
from agents.providers.base import ProviderError

calls: list[tuple[str, str]] = []


class FirstLayer(layers.MemoryLayer):
    name = "first"
    write_order = 10

    def after_run(self, run):
        calls.append(("first", run.pk))


class SecondLayer(layers.MemoryLayer):
    name = "second"
    write_order = 20

    def after_run(self, run):
        calls.append(("second", run.pk))


@pytest.fixture
def recording_layers(settings):
    calls.clear()
    settings.MEMORY_LAYERS = ["tests.layers.ThreadsOnly", f"{__name__}.SecondLayer", f"{__name__}.FirstLayer"]
    yield calls
    calls.clear()


def test_one_memory_job_runs_after_commit_with_layers_in_write_order(api, agent, recording_layers, memory_jobs):
    with memory_jobs() as callbacks:
        run_id = api.run(agent, "出题").json()["run_id"]
    assert len(callbacks) == 1
    assert recording_layers == [("first", run_id), ("second", run_id)]
    assert Run.objects.get(pk=run_id).memory_done_at is not None


def test_a_failed_run_also_gets_its_memory_job(api, agent, recording_layers, memory_jobs, scripted_provider):
    scripted_provider.queue_replies(ProviderError("provider_error"))
    with memory_jobs() as callbacks:
        api.run(agent, "出题")
    assert len(callbacks) == 1
    assert [name for name, _ in recording_layers] == ["first", "second"]


def test_finishing_a_run_twice_enqueues_one_job(agent, recording_layers, memory_jobs, school):
    from agents.actor import Actor
    from agents.runner import run_finish, run_prepare

    prepared = run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题")
    with memory_jobs() as callbacks:
        run_finish(run=prepared.run, error_code="provider_error")
        run_finish(run=prepared.run, error_code="provider_error")
    assert len(callbacks) == 1


def test_the_job_is_idempotent_and_ignores_missing_runs(agent, recording_layers, api):
    from agents.tasks import memory_job

    run_id = api.run(agent, "出题").json()["run_id"]
    recording_layers.clear()
    assert memory_job(run_id) == "done"
    assert memory_job(run_id) == "done", "a second delivery finds the work done"
    assert recording_layers == [("first", run_id), ("second", run_id)]
    assert memory_job("run_missing") == "missing"


def test_the_sweep_re_sends_a_lost_job_and_gives_up_after_a_few_attempts(agent, api, settings, recording_layers,
                                                                         memory_jobs):
    from datetime import timedelta

    from django.utils import timezone

    from agents.tasks import memory_sweep

    run_id = api.run(agent, "出题").json()["run_id"]  # its job was "lost": never run (no on-commit here)
    assert Run.objects.get(pk=run_id).memory_done_at is None
    assert memory_sweep()["resent"] == 0, "not stale yet"
    settings.MEMORY_SWEEP_MAX = 2
    for attempt in (1, 2, 3):
        # Each attempt takes the lease and "dies" holding it (the lease runs out).
        Run.objects.filter(pk=run_id).update(memory_enqueued_at=timezone.now() - timedelta(hours=2),
                                             finished_at=timezone.now() - timedelta(hours=2), memory_done_at=None,
                                             memory_steps={},
                                             memory_leased_at=timezone.now() - timedelta(minutes=5),
                                             memory_lease_until=timezone.now() - timedelta(minutes=4))
        recording_layers.clear()
        resent = memory_sweep()["resent"]
        assert resent == (1 if attempt <= 2 else 0)
        assert bool(recording_layers) is (attempt <= 2)  # the queue runs inline in tests
    run = Run.objects.get(pk=run_id)
    assert (run.memory_sweeps, run.memory_attempts) == (2, 2)


def test_the_sweep_leaves_runs_whose_memory_is_done(agent, api, memory_jobs, recording_layers):
    from datetime import timedelta

    from django.utils import timezone

    from agents.tasks import memory_sweep

    with memory_jobs():
        run_id = api.run(agent, "出题").json()["run_id"]
    Run.objects.filter(pk=run_id).update(finished_at=timezone.now() - timedelta(hours=2),
                                         memory_enqueued_at=timezone.now() - timedelta(hours=2))
    assert memory_sweep()["resent"] == 0


def test_the_sweep_fails_a_run_abandoned_mid_stream_so_its_thread_can_move_on(agent, school, recording_layers,
                                                                              memory_jobs, settings):
    from datetime import timedelta

    from django.utils import timezone

    from agents.actor import Actor
    from agents.runner import run_prepare
    from agents.tasks import memory_sweep

    prepared = run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题")  # never finished
    assert memory_sweep()["abandoned"] == 0
    assert Run.objects.get(pk=prepared.run.pk).status == Run.Status.RUNNING, "a live run is left alone"
    Run.objects.filter(pk=prepared.run.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert memory_sweep()["abandoned"] == 0, "an old run whose heartbeat is fresh is still alive"
    Run.objects.filter(pk=prepared.run.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=settings.RUN_ABANDONED_AFTER_SECONDS + 1))
    with memory_jobs():
        memory_sweep()
    run = Run.objects.get(pk=prepared.run.pk)
    assert (run.status, run.error_code, run.output) == (Run.Status.FAILED, "abandoned", "")
    assert recording_layers == [("first", run.pk), ("second", run.pk)]
