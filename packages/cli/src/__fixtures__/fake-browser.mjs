// Plays the user's browser for `toolbus mcp login`: opens the authorization URL (the test's authorization server
// approves at once), and follows its redirect to the CLI's loopback callback, as a browser would.
const url = process.argv[2];
const authorize = await fetch(url, { redirect: 'manual' });
const location = authorize.headers.get('location');
if (location) await fetch(location);
