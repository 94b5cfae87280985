package coapcc.interop;

import org.eclipse.californium.core.CoapResource;
import org.eclipse.californium.core.CoapServer;
import org.eclipse.californium.core.coap.CoAP.ResponseCode;
import org.eclipse.californium.core.coap.MediaTypeRegistry;
import org.eclipse.californium.core.server.resources.CoapExchange;
import org.eclipse.californium.elements.config.Configuration;

/**
 * A Californium 3.14.0 server with the resources of `coapcc server`, for the interop tests.
 *
 * <p>Usage: {@code Server [HOST] PORT} (HOST defaults to 127.0.0.1; the tests use loopback only).
 * It listens on UDP ({@code coap://}) and on TCP ({@code coap+tcp://}, Californium's TCP
 * connector) on the same port number.
 * Resources: {@code /echo} (the request body back: 2.05 for GET and POST, 2.04 for PUT; a
 * block-wise PUT is echoed whole), {@code /data?size=N} (GET: N bytes, the digits 0-9 repeated,
 * block-wise beyond one datagram; 4.00 without a valid size), {@code /.well-known/core} (Californium's own). Prints "ready" once
 * the endpoint is started.
 */
public final class Server {
    private Server() {}

    /** /echo: every method answers the request body. */
    static final class Echo extends CoapResource {
        Echo() {
            super("echo");
        }

        @Override
        public void handleGET(CoapExchange exchange) {
            exchange.respond(ResponseCode.CONTENT, exchange.getRequestPayload(),
                    MediaTypeRegistry.APPLICATION_OCTET_STREAM);
        }

        @Override
        public void handlePUT(CoapExchange exchange) {
            exchange.respond(ResponseCode.CHANGED, exchange.getRequestPayload(),
                    MediaTypeRegistry.APPLICATION_OCTET_STREAM);
        }

        @Override
        public void handlePOST(CoapExchange exchange) {
            handleGET(exchange);
        }
    }

    /** /data?size=N: GET answers N bytes of digits. */
    static final class Data extends CoapResource {
        Data() {
            super("data");
        }

        @Override
        public void handleGET(CoapExchange exchange) {
            Integer size = null;
            for (String query : exchange.getRequestOptions().getUriQuery()) {
                if (query.startsWith("size=")) {
                    try {
                        size = Integer.valueOf(query.substring("size=".length()));
                    } catch (NumberFormatException e) {
                        size = null;
                    }
                }
            }
            if (size == null || size < 0 || size > Peer.MAX_BODY_BYTES) {
                exchange.respond(ResponseCode.BAD_REQUEST, "size=N needed, 0 <= N <= 1000000");
                return;
            }
            exchange.respond(ResponseCode.CONTENT, Peer.digits(size),
                    MediaTypeRegistry.APPLICATION_OCTET_STREAM);
        }
    }

    /** Starts the server and runs until the process is killed. */
    public static void main(String[] args) {
        String host = args.length >= 2 ? args[0] : "127.0.0.1";
        int port;
        try {
            port = Integer.parseInt(args[args.length - 1]);
        } catch (RuntimeException e) {
            System.err.println("usage: Server [HOST] PORT");
            System.exit(2);
            return;
        }
        Configuration config = Peer.configuration();
        CoapServer server = new CoapServer(config);
        server.addEndpoint(Peer.endpoint(config, host, port));
        server.addEndpoint(Peer.tcpEndpoint(config, host, port, true));
        server.add(new Echo(), new Data());
        server.start();
        System.out.println("ready");
        System.out.flush();
    }
}
