// Executions (and flow control's closed coordinator runs, and the Idempotency-Key joins, which
// are workflow ids) are kept by Temporal: a closed execution is deleted after its namespace's
// retention. flowhook sets that retention only on the dev server `flowhook start` runs itself
// (FLOWHOOK_EXECUTION_RETENTION); a cluster's namespace belongs to its operator (Temporal Cloud
// refuses the change to an API key without namespace-admin rights), so there it is only read.
import { Connection, type Client } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common';

type WorkflowService = Connection['workflowService'];

/** Sets the namespace's retention; resolves once Temporal accepted it. */
export async function applyNamespaceRetention(
  service: WorkflowService,
  namespace: string,
  retentionMs: number,
): Promise<void> {
  await service.updateNamespace({
    namespace,
    config: { workflowExecutionRetentionTtl: msToTs(retentionMs) },
  });
}

/** The namespace's retention in ms, as Temporal describes it. */
export async function namespaceRetentionMs(client: Client, namespace: string): Promise<number> {
  const described = await client.workflowService.describeNamespace({ namespace });
  return tsToMs(described.config?.workflowExecutionRetentionTtl);
}

/** `flowhook start`: the retention of the namespace on the dev server it just started. */
export async function setDevServerRetention(address: string, namespace: string, retentionMs: number): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await applyNamespaceRetention(connection.workflowService, namespace, retentionMs);
  } finally {
    await connection.close();
  }
}
