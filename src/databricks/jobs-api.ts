/** Jobs (reference §2b): list runs with paging, get one run, get a job's settings (its cluster specs). */
import type { DatabricksHttpClient } from './http-client.js';
import type { Job, ListRunsResponse, Run } from './wire-types.js';

export interface ListRunsRequest {
  jobId: number;
  /** Mutually exclusive with `completedOnly`. */
  activeOnly?: boolean;
  completedOnly?: boolean;
  /** 1..24, larger asks are sent as 24. @defaultValue 24 */
  limit?: number;
  startTimeFrom?: number;
  pageToken?: string;
}

/** The reference: `limit` "must be greater than 0 and less than 25"; 25 risks a 400 on every poll. */
export const RUNS_LIST_MAX_LIMIT = 24;

export class JobsApi {
  constructor(private readonly http: DatabricksHttpClient) {}

  listRuns(request: ListRunsRequest): Promise<ListRunsResponse> {
    return this.http.request<ListRunsResponse>({
      method: 'GET',
      path: '/api/2.2/jobs/runs/list',
      query: {
        job_id: request.jobId,
        active_only: request.activeOnly || undefined,
        completed_only: request.completedOnly || undefined,
        limit: Math.min(request.limit ?? RUNS_LIST_MAX_LIMIT, RUNS_LIST_MAX_LIMIT),
        start_time_from: request.startTimeFrom,
        page_token: request.pageToken,
      },
    });
  }

  /** Every run of a job matching the request, following `next_page_token`, at most `maxPages` pages. */
  async listAllRuns(request: ListRunsRequest, maxPages = 20): Promise<Run[]> {
    const runs: Run[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const response = await this.listRuns({ ...request, pageToken });
      // A `runs` that is no list is no runs (the caller reads each run it gets: job-runs-source.ts).
      if (Array.isArray(response?.runs)) runs.push(...response.runs);
      if (!response?.has_more || typeof response.next_page_token !== 'string' || !response.next_page_token) break;
      pageToken = response.next_page_token;
    }
    return runs;
  }

  getRun(runId: number): Promise<Run> {
    return this.http.request<Run>({ method: 'GET', path: '/api/2.2/jobs/runs/get', query: { run_id: runId } });
  }

  /**
   * A job's settings: tasks and the job clusters they run on. Jobs API 2.1, which returns every task
   * and job cluster in one response (2.2 pages them).
   */
  getJob(jobId: number): Promise<Job> {
    return this.http.request<Job>({ method: 'GET', path: '/api/2.1/jobs/get', query: { job_id: jobId } });
  }
}
