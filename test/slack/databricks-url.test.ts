/** The link behind "Open in Databricks": the run page, else the job or pipeline page of the workspace's origin. */
import { describe, expect, it } from 'vitest';
import { databricksUrlFor } from '../../src/slack/operations/databricks-url.js';

describe('databricksUrlFor', () => {
  it('prefers the run page, then the workspace origin with the job or pipeline', () => {
    expect(databricksUrlFor({ runPageUrl: 'https://adb-1.2.azuredatabricks.net/?o=1#job/7/run/9', jobId: '7' })).toBe('https://adb-1.2.azuredatabricks.net/?o=1#job/7/run/9');
    expect(databricksUrlFor({ workspace: 'prod', workspaceUrl: 'https://adb-1.2.azuredatabricks.net/', jobId: '7' })).toBe('https://adb-1.2.azuredatabricks.net/jobs/7');
    expect(databricksUrlFor({ workspace: 'demo', workspaceUrl: 'http://127.0.0.1:4411', pipelineId: 'p-1' })).toBe('http://127.0.0.1:4411/pipelines/p-1');
  });

  it('never makes a host of a workspace name: no link rather than https://prod/jobs/7', () => {
    expect(databricksUrlFor({ workspace: 'prod', jobId: '7' })).toBeNull();
    expect(databricksUrlFor({ workspace: 'demo', workspaceUrl: 'javascript:alert(1)', jobId: '7' })).toBeNull();
    // A stream registered before workspaceUrl, with a host in `workspace`, still links.
    expect(databricksUrlFor({ workspace: 'adb-1.2.azuredatabricks.net', jobId: '7' })).toBe('https://adb-1.2.azuredatabricks.net/jobs/7');
  });
});
