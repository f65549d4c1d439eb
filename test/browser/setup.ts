// Browser suites boot the application and drive Chromium; a project's testTimeout is not honoured
// when it runs under the root configuration, so the timeout is set here.
jest.setTimeout(300_000);
