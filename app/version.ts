// Version strings of the spec (`version` and `api` of both status endpoints).
export const SERVICE_VERSION = "1.5.0";
export const API_VERSION = "v1";
