import { Annotations, ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { pascal } from './ids';

/*
 * The provider secrets (DataForSEO's, Tavily's): named at synth by context, read by the functions that
 * call the provider. A name is checked at synth (its form) and at deploy (that the secret is there), so
 * a typo stops `cdk deploy` with the name in the error instead of failing the first paid call.
 */

const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/(?:mrk-)?[0-9a-f-]+$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;
/** Secrets Manager's names: 1 to 512 of these characters (its CreateSecret). */
const SECRET_NAME = /^[\w/+=.@-]{1,512}$/;

/** The secret's ARN for a policy: as given, or for a name with the six random characters Secrets Manager adds. */
function secretArnOf(stack: Stack, nameOrArn: string): string {
  return nameOrArn.startsWith('arn:')
    ? nameOrArn
    : stack.formatArn({
        service: 'secretsmanager',
        resource: 'secret',
        resourceName: `${nameOrArn}-??????`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
}

/** Stops the synth on what cannot name a secret or a key, naming the context that gave it. */
function checkedForm(scope: Construct, context: string, nameOrArn: string): void {
  if (nameOrArn.startsWith('arn:')) {
    if (!SECRET_ARN.test(nameOrArn))
      throw new Error(
        `${context} must be a secret's name or its complete ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), not ${nameOrArn}`,
      );
    return;
  }
  if (!SECRET_NAME.test(nameOrArn))
    throw new Error(
      `${context} must be a Secrets Manager name: 1 to 512 letters, digits and / _ + = . @ -, not ${JSON.stringify(nameOrArn)}`,
    );
  // Secrets Manager reads a name that ends so as a partial ARN (its own advice: don't name one so).
  if (/-[A-Za-z0-9]{6}$/.test(nameOrArn))
    Annotations.of(scope).addWarningV2(
      `@cm/secret-name:${context}`,
      `${context} ${nameOrArn} ends with a hyphen and six characters, which Secrets Manager may read as the random suffix of an ARN: give the complete ARN instead`,
    );
}

/** Stops the synth on a key given by alias or id: IAM grants Decrypt on a key's ARN only, so they would grant nothing. */
export function checkedKmsKey(secretsKmsKeyArn: string | undefined): string | undefined {
  if (secretsKmsKeyArn !== undefined && !KMS_KEY_ARN.test(secretsKmsKeyArn))
    throw new Error(
      `secretsKmsKeyArn must be a KMS key's ARN (arn:aws:kms:<region>:<account>:key/<id>), not ${secretsKmsKeyArn}`,
    );
  return secretsKmsKeyArn;
}

/**
 * At deploy, Secrets Manager's DescribeSecret of the secret `context` names (its metadata, never its
 * value): a secret that is not there fails the deploy with "can't find the specified secret" under
 * this resource's name, which says which context to fix.
 */
export function secretAtDeploy(scope: Construct, context: string, nameOrArn: string): void {
  checkedForm(scope, context, nameOrArn);
  const stack = Stack.of(scope);
  const describe = {
    service: 'SecretsManager',
    action: 'describeSecret',
    parameters: { SecretId: nameOrArn },
    // A new name is a new check; the same name checked again on every update of its resource.
    physicalResourceId: PhysicalResourceId.of(`${context}:${nameOrArn}`),
  };
  const check = new AwsCustomResource(scope, `${pascal(context)}AtDeploy`, {
    onCreate: describe,
    onUpdate: describe,
    installLatestAwsSdk: false,
    policy: AwsCustomResourcePolicy.fromStatements([
      new PolicyStatement({ actions: ['secretsmanager:DescribeSecret'], resources: [secretArnOf(stack, nameOrArn)] }),
    ]),
  });
  Validations.of(check).acknowledge({
    id: 'AwsSolutions-IAM5',
    reason: 'A secret given by name has an ARN that ends in six random characters: the policy names them with ??????',
  });
  // The one function CDK makes for every AwsCustomResource of the stack.
  const provider = stack.node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
  if (provider)
    Validations.of(provider).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "CDK's function for deploy-time checks writes only its own logs; it runs at deploy, never for a request",
    });
}

/**
 * Lets `fn` read a secret, given by complete ARN or by name, and names it in `variable`: GetSecretValue
 * and nothing else. A secret under a customer managed key needs that key's ARN: the function may then
 * decrypt with it, through Secrets Manager only; without one, the secret must be under the account's
 * default key (`aws/secretsmanager`).
 */
export function grantSecret(fn: NodejsFunction, variable: string, nameOrArn: string, kmsKeyArn?: string): void {
  const stack = Stack.of(fn);
  allowValue(fn, secretArnOf(stack, nameOrArn));
  if (kmsKeyArn)
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [kmsKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.amazonaws.com` } },
      }),
    );
  fn.addEnvironment(variable, nameOrArn);
}

/**
 * Lets each of `fns` read a secret of the stack's own (its value, nothing else of it) and names its ARN
 * in `variable`: the function reads the value at run time (packages/runtime/src/secrets.ts), so no
 * environment, which lambda:GetFunctionConfiguration shows, holds it.
 */
export function grantOwnSecret(fns: readonly NodejsFunction[], variable: string, secret: ISecret): void {
  for (const fn of fns) {
    allowValue(fn, secret.secretArn);
    fn.addEnvironment(variable, secret.secretArn);
  }
}

/** GetSecretValue of one secret, and nothing else. */
const allowValue = (fn: NodejsFunction, secretArn: string) =>
  fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }));
