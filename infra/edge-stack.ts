import { Stack, type StackProps } from 'aws-cdk-lib';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { Alarms } from './constructs/alarms';
import { endpointAcl } from './constructs/firewall';

export interface EdgeStackProps extends StackProps {
  /** An address to email when one of its alarms fires (its own topic: an alarm notifies a topic of its own region). */
  alarmEmail?: string;
}

/**
 * What WAF needs in us-east-1, where a CloudFront distribution's web ACL must be made: the rate rules and
 * managed rule groups in front of the API and of the streaming MCP endpoint, their logs and alarms. ContentApiStack's
 * distributions name these web ACLs.
 */
export class EdgeStack extends Stack {
  readonly apiAcl: CfnWebACL;
  readonly streamAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeStackProps = {}) {
    super(scope, id, props);
    const alarms = new Alarms(this, props.alarmEmail);
    this.apiAcl = endpointAcl(this, 'api', alarms);
    this.streamAcl = endpointAcl(this, 'mcp-stream', alarms);
    // The WAF alarms' topics are this region's (us-east-1): subscribe to them as to the service stack's.
    alarms.outputs();
  }
}
