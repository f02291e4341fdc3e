type PetsPets_create_Pet = {
  id: number;
  name: string;
  parent?: PetsPets_create_Pet | null;
  tag?: string | null;
};

type PetsPets_get_Pet = {
  id: number;
  name: string;
  parent?: PetsPets_get_Pet | null;
  tag?: string | null;
};

type PetsPets_update_Pet = {
  id: number;
  name: string;
  parent?: PetsPets_update_Pet | null;
  tag?: string | null;
};

declare const tools: {
  pets: {
    /**
     * Add a pet
     *
     * POST /pets
     */
    pets_create(args: {
      kind?: "cat" | "dog" | null;
      name: string;
      tag?: string | null;
      "x-internal"?: string;
    }): Promise<PetsPets_create_Pet>;
    /**
     * Remove a pet
     *
     * DELETE /pets/{petId}
     */
    pets_delete(args: {
      /** The pet's id. @minimum 1 */
      petId: number;
    }): Promise<unknown>;
    /**
     * Get a pet
     *
     * GET /pets/{petId}
     */
    pets_get(args: {
      /** The pet's id. @minimum 1 */
      petId: number;
    }): Promise<PetsPets_get_Pet>;
    /**
     * List pets
     *
     * Lists the pets of the store, a page at a time.
     *
     * GET /pets
     */
    pets_list(args?: {
      "X-Request-Id"?: string;
      /** How many pets to return. @exclusiveMinimum 0 @maximum 100 @default 20 */
      limit?: number;
      tags?: string[];
    }): Promise<unknown>;
    /**
     * Replace a pet's notes
     *
     * PUT /pets/{petId}/notes
     */
    pets_set_notes(args: {
      /** The body, sent as text/plain. */
      body: string;
      petId: number;
    }): Promise<unknown>;
    /**
     * Change a pet
     *
     * PATCH /pets/{petId}
     */
    pets_update(args: {
      body?: {
        name?: string;
        /** Clashes with the path parameter: the body stays whole. */
        petId?: string;
      };
      /** The pet's id. @minimum 1 */
      petId: number;
    }): Promise<PetsPets_update_Pet>;
  };
  /** Find tools by keywords in their names, namespaces, descriptions and parameter names. Returns {tools: [{name, description, declaration}]}, best match first; declaration is the tool's TypeScript declaration as execute_code scripts call it. Scripts can call it too: await tools.search_tools({query: "issue"}). */
  search_tools(args: {
    /** Keywords: words of the tool's name, namespace, description or parameter names. */
    query: string;
    /** Most tools to return. @minimum 1 @maximum 20 @default 5 */
    limit?: number;
  }): Promise<unknown>;
};
declare const input: unknown;
declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void; debug(...args: unknown[]): void };
