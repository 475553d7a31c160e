/**
 * The local Databricks' Jobs routes over real HTTP on loopback, around a `JobRuns` the test holds, so
 * it can queue runs and begin them (the `LocalDatabricks` handle starts runs RUNNING only).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JobRuns, type JobInfo } from '../../src/standins/databricks/job-runs.js';
import type { DatabricksState } from '../../src/standins/databricks/routes/context.js';
import { HttpError, sendJson } from '../../src/standins/databricks/routes/http.js';
import { handleJobRoutes } from '../../src/standins/databricks/routes/jobs.js';

export interface JobRunsServer {
  url: string;
  runs: JobRuns;
  close(): Promise<void>;
}

export async function startJobRunsServer(jobs: JobInfo[]): Promise<JobRunsServer> {
  let runs: JobRuns | undefined;
  // Only what the Jobs routes read.
  const state = { jobRuns: () => runs!, count: () => undefined } as unknown as DatabricksState;
  const server: Server = createServer((req, res) => {
    const parsed = new URL(req.url ?? '/', 'http://local');
    try {
      const request = { req, res, method: req.method ?? 'GET', path: parsed.pathname, params: parsed.searchParams };
      if (!handleJobRoutes(request, state)) sendJson(res, 404, { error_code: 'ENDPOINT_NOT_FOUND', message: `No API found for '${req.method} ${parsed.pathname}'.` });
    } catch (error) {
      const known = error instanceof HttpError ? error : new HttpError(500, 'INTERNAL_ERROR', String(error));
      sendJson(res, known.status, { error_code: known.errorCode, message: known.message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runs = new JobRuns(url);
  for (const job of jobs) runs.addJob(job);
  return {
    url,
    runs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
