package coapcc.interop;

import java.net.InetSocketAddress;

import org.eclipse.californium.core.config.CoapConfig;
import org.eclipse.californium.core.network.CoapEndpoint;
import org.eclipse.californium.elements.config.Configuration;
import org.eclipse.californium.elements.config.TcpConfig;
import org.eclipse.californium.elements.config.UdpConfig;
import org.eclipse.californium.elements.tcp.netty.TcpClientConnector;
import org.eclipse.californium.elements.tcp.netty.TcpServerConnector;

/** What the server and the client share: the configuration, the endpoints and the body of /data. */
final class Peer {
    /** The largest body either side accepts (Block1 or Block2), above the 100 kB the tests move. */
    static final int MAX_BODY_BYTES = 1_000_000;

    private Peer() {}

    /** The standard configuration (no properties file written), with bodies up to MAX_BODY_BYTES. */
    static Configuration configuration() {
        CoapConfig.register();
        UdpConfig.register();
        TcpConfig.register();
        Configuration config = Configuration.createStandardWithoutFile();
        config.set(CoapConfig.MAX_RESOURCE_BODY_SIZE, MAX_BODY_BYTES);
        return config;
    }

    /** A UDP endpoint bound to the given address (port 0: any free port). */
    static CoapEndpoint endpoint(Configuration config, String host, int port) {
        CoapEndpoint.Builder builder = new CoapEndpoint.Builder();
        builder.setConfiguration(config);
        builder.setInetSocketAddress(new InetSocketAddress(host, port));
        return builder.build();
    }

    /**
     * A CoAP-over-TCP endpoint (Californium's "experimental" element-connector-tcp-netty): a
     * listening one on the given address for a server, a connecting one for a client.
     */
    static CoapEndpoint tcpEndpoint(Configuration config, String host, int port, boolean server) {
        CoapEndpoint.Builder builder = new CoapEndpoint.Builder();
        builder.setConfiguration(config);
        if (server) {
            builder.setConnector(new TcpServerConnector(new InetSocketAddress(host, port), config));
        } else {
            builder.setConnector(new TcpClientConnector(config));
        }
        return builder.build();
    }

    /** The body of /data?size=N, as `coapcc server` has it: the digits 0-9 repeated. */
    static byte[] digits(int size) {
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++) {
            body[i] = (byte) ('0' + i % 10);
        }
        return body;
    }
}
