"""The memory outbox: per-step outcomes, the job lease, claims that are retried rather
than dropped, the reconciler, heartbeats and the startup check of the timings."""

import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from agents import layers
from agents.models import MemoryOp, Run
from agents.tasks import memory_job, memory_sweep
from tests import procs

failures: list[str] = []
calls: list[str] = []


class FlakyLayer(layers.MemoryLayer):
    """Raises while `failures` holds something."""

    name = "flaky"
    write_order = 15

    def after_run(self, run):
        calls.append(self.name)
        if failures:
            raise RuntimeError(failures.pop())


class CountingLayer(layers.MemoryLayer):
    name = "counting"
    write_order = 25

    def after_run(self, run):
        calls.append(self.name)
        return layers.StepResult.done()


@pytest.fixture
def flaky_layers(settings):
    failures.clear()
    calls.clear()
    settings.MEMORY_LAYERS = ["tests.layers.ThreadsOnly", f"{__name__}.FlakyLayer", f"{__name__}.CountingLayer"]
    yield
    failures.clear()
    calls.clear()


def _age(run_id, **fields_seconds_ago):
    Run.objects.filter(pk=run_id).update(
        **{name: timezone.now() - timedelta(seconds=ago) for name, ago in fields_seconds_ago.items()})


def test_a_job_leaves_a_run_leased_by_another_job_alone_until_the_lease_runs_out(api, agent, settings):
    run_id = api.run(agent, "出题").json()["run_id"]
    Run.objects.filter(pk=run_id).update(memory_lease_token="other", memory_leased_at=timezone.now(),
                                         memory_lease_until=timezone.now() + timedelta(seconds=30))
    assert memory_job(run_id) == "leased"
    assert memory_sweep()["resent"] == 0, "a live lease is never re-sent"
    # A lease renewed for longer than the hard limit belongs to a hung job: taken over.
    _age(run_id, memory_leased_at=settings.MEMORY_SWEEP_AFTER_SECONDS + 1)
    assert memory_job(run_id) == "done"
    assert Run.objects.get(pk=run_id).memory_lease_token == ""


def test_a_failing_step_is_retried_while_the_others_run_once(api, agent, flaky_layers, settings):
    run_id = api.run(agent, "出题").json()["run_id"]
    failures.append("boom")
    assert memory_job(run_id) == "retry"
    run = Run.objects.get(pk=run_id)
    assert run.memory_steps == {"threads-only": "done", "flaky": "retry", "counting": "done"}
    assert run.memory_done_at is None and run.memory_retry_at > timezone.now()
    assert calls == ["flaky", "counting"]
    Run.objects.filter(pk=run_id).update(memory_retry_at=timezone.now())
    calls.clear()
    assert memory_sweep()["resent"] == 1
    assert calls == ["flaky"], "only the step that was not done runs again"
    assert Run.objects.get(pk=run_id).memory_done_at is not None


def test_a_job_sent_but_never_started_is_re_sent_after_the_resend_delay(api, agent, flaky_layers, settings):
    run_id = api.run(agent, "出题").json()["run_id"]  # sent (on commit, not run here), never started
    assert memory_sweep()["resent"] == 0
    _age(run_id, memory_enqueued_at=settings.MEMORY_RESEND_AFTER_SECONDS + 1,
         finished_at=settings.MEMORY_RESEND_AFTER_SECONDS + 1)
    assert memory_sweep()["resent"] == 1
    run = Run.objects.get(pk=run_id)
    assert run.memory_done_at is not None and run.memory_sweeps == 1 and run.memory_attempts == 1


def test_compression_records_which_runs_it_folded(api, agent, memory_jobs):
    thread_id = None
    for index in range(5):
        with memory_jobs():
            body = api.run(agent, f"第{index}题", thread_id=thread_id).json()
        thread_id = body["thread_id"]
    covered = [run for op in MemoryOp.objects.filter(kind="compress", status="ok") for run in op.covered_runs]
    from threads.models import Thread

    cursor = Thread.objects.get(pk=thread_id).summary_upto_at
    folded = list(Run.objects.filter(thread_id=thread_id, created_at__lte=cursor).values_list("pk", flat=True))
    assert folded and sorted(covered) == sorted(folded), "every folded run recorded once"
    assert Run.objects.filter(thread_id=thread_id, memory_done_at__isnull=True).count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_running_run_refreshes_its_heartbeat_and_a_silent_one_is_abandoned(agent, school, settings):
    from agents import heartbeat
    from agents.actor import Actor
    from agents.runner import run_prepare

    settings.RUN_HEARTBEAT_SECONDS = 0.2
    live = run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题").run
    dead = run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题").run
    old = timezone.now() - timedelta(seconds=settings.RUN_ABANDONED_AFTER_SECONDS + 5)
    Run.objects.filter(pk__in=[live.pk, dead.pk]).update(heartbeat_at=old)
    with heartbeat.beating(live.pk):
        procs.wait_until(lambda: Run.objects.get(pk=live.pk).heartbeat_at > old, timeout=10, interval=0.1)
        assert memory_sweep()["abandoned"] == 1
    assert Run.objects.get(pk=live.pk).status == Run.Status.RUNNING
    dead = Run.objects.get(pk=dead.pk)
    assert (dead.status, dead.error_code) == (Run.Status.FAILED, "abandoned")


@pytest.mark.django_db(transaction=True)
def test_a_run_beats_while_its_context_is_read(agent, school, settings, monkeypatch):
    # A process's first read waits for the segmenter and the embedding model to load: the
    # run is already recorded as running, and the reconciler must not take it for dead.
    from agents import runner
    from agents.actor import Actor

    settings.RUN_HEARTBEAT_SECONDS = 0.2
    read = runner.assemble_context
    beats = []

    def slow_read(ctx):
        old = timezone.now() - timedelta(seconds=settings.RUN_ABANDONED_AFTER_SECONDS + 5)
        Run.objects.filter(pk=ctx.run.pk).update(heartbeat_at=old)
        procs.wait_until(lambda: Run.objects.get(pk=ctx.run.pk).heartbeat_at > old, timeout=10, interval=0.1)
        beats.append(memory_sweep()["abandoned"])
        return read(ctx)

    monkeypatch.setattr(runner, "assemble_context", slow_read)
    run = runner.run_prepare(actor=Actor(tenant=school, via_api_key=True), agent=agent, input="出题").run
    assert beats == [0]
    assert Run.objects.get(pk=run.pk).status == Run.Status.RUNNING


UNSAFE = [
    ({"MEMORY_JOB_TIMEOUT": "600", "MEMORY_SWEEP_AFTER_SECONDS": "300"},
     "MEMORY_SWEEP_AFTER_SECONDS (300) must exceed the memory job timeout MEMORY_JOB_TIMEOUT (600)"),
    ({"MEMORY_JOB_TIMEOUT": "600", "MEMORY_JOB_RETRY": "600"}, "MEMORY_JOB_RETRY (600) must exceed"),
    ({"RUN_HEARTBEAT_SECONDS": "40"}, "RUN_ABANDONED_AFTER_SECONDS (60) must exceed twice"),
]


def _manage(tmp_path, *command, **env):
    child = procs.project_env(**env)
    child.pop("DATABASE_URL", None)
    child["VAR_DIR"] = str(tmp_path)
    return subprocess.run([procs.PYTHON, "manage.py", *command], cwd=procs.ROOT, env=child, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("env, message", UNSAFE)
def test_unsafe_memory_timings_are_refused_with_a_clear_message_and_the_defaults_pass(tmp_path, env, message):
    result = _manage(tmp_path, "check", **env)
    assert result.returncode != 0
    assert "memory queue settings refused" in result.stderr and message in result.stderr
    assert _manage(tmp_path, "check").returncode == 0, "the defaults are safe"


@pytest.mark.parametrize("command", [["qcluster"], ["serve", "--port", "0"]])
def test_the_worker_and_serve_refuse_to_start_with_unsafe_timings(tmp_path, command):
    env, message = UNSAFE[0]
    result = _manage(tmp_path, *command, **env)
    assert result.returncode != 0
    assert message in result.stderr
