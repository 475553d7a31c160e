export { coresOfNodeType } from './node-type-cores.js';
export { streamClusterOf, type ClusterSize, type StreamCluster } from './stream-cluster.js';
export { capacityAdviceInWorkers, clusterLabel, incidentInWorkers, workersNeeded, type WorkerChange } from './worker-advice.js';
export { JobClusterCache, type JobClusterCacheOptions, type JobReader } from './job-cluster-cache.js';
export { jobClusterAdvisor, keepWording, type CapacityAdvisor, type JobClusterAdvisorOptions } from './capacity-advisor.js';
