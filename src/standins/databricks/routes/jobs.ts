/**
 * Jobs API (2.1 and 2.2 paths alike): `jobs/get`, `jobs/runs/get` and `jobs/runs/list`, newest run
 * first, paged with an opaque token as the real API does.
 */
import type { DatabricksState, RouteRequest } from './context.js';
import { boolParam, HttpError, intParam, sendJson } from './http.js';

/** The largest `runs/list` limit ("greater than 0 and less than 25"). */
const RUNS_LIST_MAX_LIMIT = 24;
/** `runs/list` `run_type` values. */
const RUN_TYPES = ['JOB_RUN', 'WORKFLOW_RUN', 'SUBMIT_RUN'];

/** Answers the job paths; false for any other. */
export function handleJobRoutes(request: RouteRequest, state: DatabricksState): boolean {
  const { res, method, path, params } = request;
  let match: RegExpExecArray | null;
  if (/^\/api\/2\.[12]\/jobs\/get$/.test(path) && method === 'GET') {
    state.count('GET /api/2.1/jobs/get');
    const text = params.get('job_id');
    if (text === null || text === '') throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'Missing required field: job_id');
    const jobId = intParam(params, 'job_id')!;
    const job = state.jobRuns().getJob(jobId);
    if (!job) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Job ${jobId} does not exist.`);
    sendJson(res, 200, job);
    return true;
  }
  if ((match = /^\/api\/2\.[12]\/jobs\/runs\/(list|get)$/.exec(path)) && method === 'GET') {
    const runs = state.jobRuns();
    if (match[1] === 'get') {
      state.count('GET /api/2.2/jobs/runs/get');
      const runId = intParam(params, 'run_id');
      const run = runId === undefined ? undefined : runs.get(runId);
      if (!run) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Run ${params.get('run_id')} does not exist.`);
      sendJson(res, 200, run);
      return true;
    }
    state.count('GET /api/2.2/jobs/runs/list');
    const activeOnly = boolParam(params, 'active_only');
    const completedOnly = boolParam(params, 'completed_only');
    if (activeOnly && completedOnly) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'active_only and completed_only cannot both be true.');
    }
    // The API reference: limit "must be greater than 0 and less than 25", default 20, and 0 asks for
    // the maximum. Refusing 25 keeps a client that sends it from passing here and failing there.
    let limit = intParam(params, 'limit') ?? 20;
    if (limit === 0) limit = RUNS_LIST_MAX_LIMIT;
    if (limit < 1 || limit > RUNS_LIST_MAX_LIMIT) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid limit ${limit}: limit must be greater than 0 and less than 25.`);
    }
    const runType = params.get('run_type') || undefined;
    if (runType !== undefined && !RUN_TYPES.includes(runType)) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid run_type '${runType}': use one of ${RUN_TYPES.join(', ')}.`);
    }
    const jobId = intParam(params, 'job_id');
    const all = runs.list({
      jobId,
      runType,
      activeOnly,
      completedOnly,
      startTimeFrom: intParam(params, 'start_time_from'),
      startTimeTo: intParam(params, 'start_time_to'),
    });
    // The token names the last run served, so a page stays stable while new runs start.
    let start = 0;
    const token = params.get('page_token');
    if (token) {
      const [, runIdText] = /^run:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8')) ?? [];
      if (!runIdText) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'Invalid page_token.');
      start = all.findIndex((run) => run.run_id < Number(runIdText));
      if (start < 0) start = all.length;
    }
    const page = all.slice(start, start + limit);
    const hasMore = start + limit < all.length;
    const body: Record<string, unknown> = { has_more: hasMore };
    if (page.length) body.runs = page;
    if (hasMore) body.next_page_token = Buffer.from(`run:${page.at(-1)!.run_id}`).toString('base64url');
    sendJson(res, 200, body);
    return true;
  }
  return false;
}
