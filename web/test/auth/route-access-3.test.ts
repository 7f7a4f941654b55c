// Part 3 of 3 of the spelling matrix (test/auth/spelling-matrix.ts; the rest in route-access.test.ts).
import { spellingMatrix } from './spelling-matrix.ts';

spellingMatrix(2, 3);
