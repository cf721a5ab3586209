import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

export type CustomResourceEvent = CloudFormationCustomResourceEvent;

/** A CloudFormation custom resource request (AWS CloudFormation User Guide, "Custom resource request objects"). */
export function isCustomResourceEvent(event: unknown): event is CustomResourceEvent {
  const e = event as Partial<CustomResourceEvent> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.RequestType === 'Create' || e.RequestType === 'Update' || e.RequestType === 'Delete') &&
    typeof e.ResponseURL === 'string' &&
    typeof e.StackId === 'string' &&
    typeof e.RequestId === 'string' &&
    typeof e.LogicalResourceId === 'string'
  );
}

export interface CustomResourceOutcome {
  status: 'SUCCESS' | 'FAILED';
  physicalResourceId: string;
  /** Required for FAILED; shown in the stack events. */
  reason?: string;
  /** Readable with Fn::GetAtt and shown by DescribeStackEvents: never a secret here. */
  data?: Record<string, string>;
}

/** CloudFormation refuses a response body above 4096 bytes. */
const MAX_REASON = 1000;

/**
 * Sends the outcome to the request's pre-signed S3 URL ("Custom resource response objects").
 * The body is a Buffer so fetch adds no Content-Type: the URL is signed for an empty one, like the
 * `cfn-response` module's `content-type: ''`. A few retries, because a lost response leaves the
 * stack waiting until the resource's ServiceTimeout.
 */
export async function sendCustomResourceResponse(event: CustomResourceEvent, outcome: CustomResourceOutcome, attempts = 3): Promise<void> {
  const body = Buffer.from(
    JSON.stringify({
      Status: outcome.status,
      Reason: outcome.reason?.slice(0, MAX_REASON),
      PhysicalResourceId: outcome.physicalResourceId,
      StackId: event.StackId,
      RequestId: event.RequestId,
      LogicalResourceId: event.LogicalResourceId,
      ...(outcome.data ? { Data: outcome.data } : {}),
    }),
  );
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
      if (res.ok) return;
      lastError = new Error(`the response URL answered ${res.status}`);
    } catch (err) {
      lastError = err;
    }
    if (attempt < attempts) await new Promise((r) => setTimeout(r, 500 * attempt));
  }
  throw new Error('Could not send the custom resource response', { cause: lastError });
}
