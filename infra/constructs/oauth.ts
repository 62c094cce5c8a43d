import { Validations } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/**
 * The authorization server's secret (docs/operations.md#oauth-sign-in): its cookie keys, consent-form
 * tokens and signing key are made from it. Only the oauth function has it, as OAUTH_SECRET; the
 * functions that check access tokens need no secret (a token is looked up by its hash).
 */
export function oauthSecret(scope: Construct, oauth: NodejsFunction): Secret {
  const secret = new Secret(scope, 'OAuthSecret', {
    description: "The OAuth authorization server's secret: cookie keys, consent-form tokens, its signing key",
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Read at deploy by the oauth function only; replacing it ends sign-ins in progress and changes the signing key (docs/operations.md)',
  });
  // A dynamic reference: CloudFormation resolves it at deploy, so the value is in no template.
  oauth.addEnvironment('OAUTH_SECRET', secret.secretValue.unsafeUnwrap());
  return secret;
}
