// Before each component test file: every rendered tree is unmounted after its
// test (Testing Library cleans up by itself only where the test framework's
// hooks are globals, which these tests import instead).
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(cleanup);
