import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/** A CDK app whose every synth runs cdk-nag's AWS Solutions checks: an unacknowledged finding fails it. */
export function checkedApp(props?: AppProps): App {
  const app = new App(props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}
