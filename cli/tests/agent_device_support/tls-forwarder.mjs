// A TLS terminator for the https:// daemon test: `node tls-forwarder.mjs CERT KEY PORT` listens
// on 127.0.0.1 (a free port, printed on stdout) and forwards each TLS connection, decrypted, to
// 127.0.0.1:PORT (the agent-device daemon's HTTP endpoint), as a device farm's proxy does.
import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";

const [cert, key, port] = process.argv.slice(2);
const server = tls.createServer(
  { cert: fs.readFileSync(cert), key: fs.readFileSync(key) },
  (client) => {
    const upstream = net.connect(Number(port), "127.0.0.1");
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
  },
);
server.listen(0, "127.0.0.1", () => {
  console.log(server.address().port);
});
