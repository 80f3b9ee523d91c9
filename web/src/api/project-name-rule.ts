import { z } from 'zod';
import { updateProjectBody } from './rules';

/** The project name field alone (General settings' rename form), the server's rule. */
export const projectNameBody = z.object({ name: updateProjectBody.shape.name.unwrap() });
