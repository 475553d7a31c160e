/** Lakeflow pipelines event log (reference §2c). `page_token` excludes every other parameter but `max_results`. */
import type { DatabricksHttpClient } from './http-client.js';
import type { ListPipelineEventsResponse } from './wire-types.js';

export interface ListEventsRequest {
  /** ≤ 1000; the server may return fewer even when more follow, so only `next_page_token` says more. */
  maxResults?: number;
  /** e.g. `["timestamp asc"]`. */
  orderBy?: string[];
  /** Filter grammar: `level='INFO'`, `timestamp > '2026-…'`, joined with AND. */
  filter?: string;
  /** Continues a listing; sent alone (with max_results). */
  pageToken?: string;
}

export class PipelinesApi {
  constructor(private readonly http: DatabricksHttpClient) {}

  listEvents(pipelineId: string, request: ListEventsRequest = {}): Promise<ListPipelineEventsResponse> {
    const query = request.pageToken
      ? { page_token: request.pageToken, max_results: request.maxResults }
      : { max_results: request.maxResults, order_by: request.orderBy, filter: request.filter };
    return this.http.request<ListPipelineEventsResponse>({
      method: 'GET',
      path: `/api/2.0/pipelines/${encodeURIComponent(pipelineId)}/events`,
      query,
    });
  }
}
