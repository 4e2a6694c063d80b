// How a connection is named: flow files refer to it by this name (httpRequest's
// `connection`) and the engine stores it under it. Kept apart from the
// connection kinds, which workflow code has no use for.
export const CONNECTION_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
