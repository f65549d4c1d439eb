// API suites boot the application and run child processes: give them room.
jest.setTimeout(120_000);
