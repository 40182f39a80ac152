/** The folder of the built web UI (`npm run build -w @toolbus/web` writes it); a server serves it at `/`. */
export declare const webRoot: string;
