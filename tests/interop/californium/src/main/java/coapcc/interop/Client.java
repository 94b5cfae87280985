package coapcc.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.eclipse.californium.core.CoapClient;
import org.eclipse.californium.core.CoapResponse;
import org.eclipse.californium.core.coap.MediaTypeRegistry;
import org.eclipse.californium.core.network.CoapEndpoint;
import org.eclipse.californium.elements.config.Configuration;
import org.eclipse.californium.elements.exception.ConnectorException;

/**
 * A Californium 3.14.0 client for the interop tests: one confirmable request, block-wise when
 * the body needs it (both directions are automatic), over UDP ({@code coap://}) or over TCP
 * ({@code coap+tcp://}, Californium's TCP connector).
 *
 * <p>Usage: {@code Client GET|PUT|POST|PING URI [--payload-bytes N] [--out FILE] [--timeout-s T]}.
 * PING is {@link CoapClient#ping(long)} (over TCP Californium sends what it sends for it, see
 * the tests): it prints {@code ping=true} or {@code ping=false} and exits 0 or 2.
 * A PUT/POST body is N bytes of digits (0-9 repeated, the body of /data?size=N). Prints one line
 * {@code code=C bytes=N} (C like 2.05) and writes the response body to FILE if given.
 * Exit 0 on a success (2.xx) response, 1 on an error response, 2 on no response or bad usage.
 */
public final class Client {
    private Client() {}

    private static void usage(String why) {
        System.err.println(why);
        System.err.println("usage: Client GET|PUT|POST|PING URI [--payload-bytes N] [--out FILE] [--timeout-s T]");
        System.exit(2);
    }

    /** Sends the request, prints the result, exits with the status described above. */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            usage("a method and a URI are needed");
        }
        String method = args[0];
        String uri = args[1];
        int payloadBytes = 0;
        Path out = null;
        long timeoutMs = 20_000;
        for (int i = 2; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                usage(flag + " needs a value");
            }
            String value = args[++i];
            try {
                switch (flag) {
                    case "--payload-bytes" -> payloadBytes = Integer.parseInt(value);
                    case "--out" -> out = Path.of(value);
                    case "--timeout-s" -> timeoutMs = (long) (Double.parseDouble(value) * 1000.0);
                    default -> usage("unknown flag " + flag);
                }
            } catch (NumberFormatException e) {
                usage(flag + ": not a number: " + value);
            }
        }

        Configuration config = Peer.configuration();
        CoapEndpoint endpoint = uri.startsWith("coap+tcp://")
                ? Peer.tcpEndpoint(config, "127.0.0.1", 0, false)
                : Peer.endpoint(config, "127.0.0.1", 0);
        CoapClient client = new CoapClient(uri);
        client.setEndpoint(endpoint);
        client.setTimeout(timeoutMs);
        int status;
        try {
            CoapResponse response;
            switch (method) {
                case "PING" -> {
                    boolean pong = client.ping(timeoutMs);
                    System.out.println("ping=" + pong);
                    System.out.flush();
                    client.shutdown();
                    endpoint.destroy();
                    System.exit(pong ? 0 : 2);
                    return;
                }
                case "GET" -> response = client.get();
                case "PUT" -> response = client.put(Peer.digits(payloadBytes),
                        MediaTypeRegistry.APPLICATION_OCTET_STREAM);
                case "POST" -> response = client.post(Peer.digits(payloadBytes),
                        MediaTypeRegistry.APPLICATION_OCTET_STREAM);
                default -> {
                    usage("unknown method " + method);
                    return;
                }
            }
            if (response == null) {
                System.out.println("no response within " + timeoutMs + " ms");
                status = 2;
            } else {
                byte[] body = response.getPayload();
                System.out.println("code=" + response.getCode().text + " bytes=" + body.length);
                if (out != null) {
                    Files.write(out, body);
                }
                status = response.isSuccess() ? 0 : 1;
            }
        } catch (ConnectorException e) {
            System.out.println("connector error: " + e.getMessage());
            status = 2;
        } finally {
            client.shutdown();
            endpoint.destroy();
        }
        System.exit(status);
    }
}
