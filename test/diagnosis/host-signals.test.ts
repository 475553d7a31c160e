/** What a job or pipeline signal means for its host's `failed` incident: pure, time as an input. */
import { describe, expect, it } from 'vitest';
import { HOST_FAILURE_ADVICE, isSignalStream, signalOutcome } from '../../src/diagnosis/host-signals.js';

const T = Date.parse('2026-11-29T08:00:00.000Z');

describe('signalOutcome', () => {
  it('opens the job\'s failed incident for a failed run, with the run page and what to do', () => {
    const outcome = signalOutcome(
      { type: 'job_run_failed', jobId: 881, jobName: ' orders-stream ', runId: 42, resultState: 'FAILED', stateMessage: 'Kafka topic orders was deleted', runPageUrl: 'https://h/#job/881/run/42', endedAtMs: T },
      T + 60_000,
    );
    expect(outcome).toMatchObject({
      host: { hostId: 'job-881', name: 'orders-stream', jobId: '881', runPageUrl: 'https://h/#job/881/run/42' },
      action: { open: { kind: 'failed', severity: 'critical', openedAt: '2026-11-29T08:00:00.000Z', summary: 'Run 42 of job 881 ended FAILED: Kafka topic orders was deleted', advice: [{ text: HOST_FAILURE_ADVICE.jobRunFailed }] } },
    });
  });

  it('opens for a continuous job with no run at the last run\'s end, else at now', () => {
    const never = signalOutcome({ type: 'job_not_running', jobId: 7, lastRun: null }, T);
    expect(never).toMatchObject({ host: { hostId: 'job-7', name: 'job 7' }, action: { open: { openedAt: new Date(T).toISOString(), summary: 'Continuous job 7 has no active run (no run found)' } } });
    const stopped = signalOutcome({ type: 'job_not_running', jobId: 7, lastRun: { runId: 3, resultState: 'CANCELED', stateMessage: '', runPageUrl: null, endedAtMs: T - 5_000 } }, T);
    expect(stopped).toMatchObject({ action: { open: { openedAt: new Date(T - 5_000).toISOString(), summary: 'Continuous job 7 has no active run (last run 3 ended CANCELED)' } } });
  });

  it('resolves on a running job, opens for a failed pipeline update, and ignores the rest', () => {
    expect(signalOutcome({ type: 'job_running', jobId: 881, runId: 43, runPageUrl: null, startedAtMs: T }, T)).toEqual({ host: { hostId: 'job-881', name: 'job 881', jobId: '881' }, action: { resolveAtMs: T } });
    expect(signalOutcome({ type: 'pipeline_failed', pipelineId: 'p-1', pipelineName: 'silver', updateId: 'u-9', message: 'flow orders failed', atMs: T }, T)).toMatchObject({
      host: { hostId: 'pipeline-p-1', name: 'silver', pipelineId: 'p-1' },
      action: { open: { summary: 'Pipeline update u-9 failed: flow orders failed', advice: [{ text: HOST_FAILURE_ADVICE.pipelineFailed }] } },
    });
    expect(signalOutcome({ type: 'flow_backlog', pipelineId: 'p-1', flowName: 'orders', backlogBytes: 1, backlogFiles: null, atMs: T }, T)).toBeNull();
    expect(signalOutcome({ type: 'something_new' }, T)).toBeNull();
  });

  it('names the stream entries that stand for a host', () => {
    expect(['job-1', 'pipeline-x', 'source-ws.progress'].every(isSignalStream)).toBe(true);
    expect(isSignalStream('7a1c0f3e-5b2d-4c8e-9f10-000000000001')).toBe(false);
  });
});
