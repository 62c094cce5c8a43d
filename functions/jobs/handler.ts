import { JobIdParams, JobQuery, notFound } from '@cm/contract';
import { api, getStore, json } from '@cm/runtime';
import { awaitJob, jobView } from '@cm/tools';

export const handler = api('jobs', {
  'GET /v1/jobs/{job_id}': async (request) => {
    const { job_id: jobId } = request.params(JobIdParams);
    const job = await awaitJob(getStore(), jobId, request.siteId, request.query(JobQuery).wait_ms);
    if (!job) throw notFound(`No job ${jobId}`);
    return json(200, jobView(job));
  },
});
