import { NestedStack, Stack } from 'aws-cdk-lib';
import { CfnIntegration, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { CfnPermission, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { FUNCTIONS, type FunctionName } from '@cm/contract';
import { made } from './function';
import { pascal } from './ids';

/**
 * The API's Lambda integration and invoke permission of each function, in the nested stack
 * `Integrations`: two resources a function that would otherwise count against the service stack's 500
 * (docs/architecture/aws-stack.md#a-stack-that-can-grow). Neither holds state, and neither has a name
 * another one could clash with, so a deploy makes these before the routes turn to them and deletes the
 * old ones after. One permission a function for all its routes (any stage, method and path of this API).
 */
export function apiIntegrations(
  scope: Construct,
  api: HttpApi,
  functions: ReadonlyMap<FunctionName, IFunction>,
): Map<FunctionName, CfnIntegration> {
  const stack = new NestedStack(scope, 'Integrations', {
    description: "The API's integrations with the service's functions and their invoke permissions",
  });
  return new Map(
    FUNCTIONS.map((name) => {
      const fn = made(functions, name);
      new CfnPermission(stack, `${pascal(name)}Permission`, {
        action: 'lambda:InvokeFunction',
        functionName: fn.functionArn,
        principal: 'apigateway.amazonaws.com',
        sourceArn: Stack.of(stack).formatArn({ service: 'execute-api', resource: api.apiId, resourceName: '*/*/*' }),
      });
      const integration = new CfnIntegration(stack, `${pascal(name)}Integration`, {
        apiId: api.apiId,
        integrationType: 'AWS_PROXY',
        integrationUri: fn.functionArn,
        payloadFormatVersion: '2.0',
      });
      return [name, integration];
    }),
  );
}
