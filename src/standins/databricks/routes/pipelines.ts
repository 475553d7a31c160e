/**
 * Pipelines API: `GET /api/2.0/pipelines/{id}/events` (paged, filtered, ordered by timestamp) and
 * `GET /api/2.0/pipelines/{id}`, with the parameter rules the real endpoint enforces.
 */
import { FilterError } from '../event-filter.js';
import type { DatabricksState, RouteRequest } from './context.js';
import { HttpError, intParam, sendJson } from './http.js';

/** Answers the pipeline paths; false for any other. */
export function handlePipelineRoutes(request: RouteRequest, state: DatabricksState): boolean {
  const { res, method, path, params } = request;
  const { eventLog } = state;
  let match: RegExpExecArray | null;
  if ((match = /^\/api\/2\.0\/pipelines\/([^/]+)\/events$/.exec(path)) && method === 'GET') {
    state.count('GET /api/2.0/pipelines/{id}/events');
    const pipelineId = decodeURIComponent(match[1]!);
    if (!eventLog.has(pipelineId)) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Pipeline ${pipelineId} does not exist.`);
    const pageToken = params.get('page_token');
    // A page token carries the original query, so Databricks refuses it alongside anything but max_results.
    const others = [...params.keys()].filter((key) => key !== 'page_token' && key !== 'max_results');
    if (pageToken && others.length > 0) {
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `page_token cannot be used with other parameters except max_results (got ${others.join(', ')}).`);
    }
    const maxResults = intParam(params, 'max_results') ?? 25;
    if (maxResults < 1 || maxResults > 1000) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', 'max_results must be between 1 and 1000.');
    const orderBy = params.getAll('order_by');
    let asc = false;
    for (const order of orderBy) {
      const clause = /^timestamp\s+(asc|desc)$/i.exec(order.trim());
      if (!clause) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid order_by '${order}'; use 'timestamp asc' or 'timestamp desc'.`);
      asc = clause[1]!.toLowerCase() === 'asc';
    }
    try {
      sendJson(res, 200, eventLog.page(pipelineId, { filter: params.get('filter'), asc, maxResults, pageToken }));
    } catch (error) {
      if (error instanceof FilterError) throw new HttpError(400, 'INVALID_PARAMETER_VALUE', `Invalid filter: ${error.message}`);
      throw new HttpError(400, 'INVALID_PARAMETER_VALUE', (error as Error).message);
    }
    return true;
  }
  if ((match = /^\/api\/2\.0\/pipelines\/([^/]+)$/.exec(path)) && method === 'GET') {
    state.count('GET /api/2.0/pipelines/{id}');
    const info = eventLog.info(decodeURIComponent(match[1]!));
    if (!info) throw new HttpError(404, 'RESOURCE_DOES_NOT_EXIST', `Pipeline ${match[1]} does not exist.`);
    sendJson(res, 200, { pipeline_id: info.pipelineId, name: info.name, state: 'RUNNING', health: 'HEALTHY' });
    return true;
  }
  return false;
}
