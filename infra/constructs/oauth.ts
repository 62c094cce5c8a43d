import { Validations } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { grantOwnSecret } from './provider-secrets';

/**
 * The authorization server's secret (docs/operations.md#oauth-sign-in): its cookie keys, consent-form
 * tokens and signing key are made from it. Only the oauth function may read it, at run time: its
 * environment names it (OAUTH_SECRET_ARN). The functions that check access tokens need no secret (a
 * token is looked up by its hash).
 */
export function oauthSecret(scope: Construct, oauth: NodejsFunction): Secret {
  const secret = new Secret(scope, 'OAuthSecret', {
    description: "The OAuth authorization server's secret: cookie keys, consent-form tokens, its signing key",
    generateSecretString: { passwordLength: 48, excludePunctuation: true },
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Read at run time by the oauth function only; replacing it ends sign-ins in progress and changes the signing key (docs/operations.md)',
  });
  grantOwnSecret([oauth], 'OAUTH_SECRET_ARN', secret);
  return secret;
}
