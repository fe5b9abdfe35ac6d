type Transport = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps a double's `fetch` so a test sees when a request was handed to the transport ("fetch") and
 * when its answer came back ("answered"), in `order` (the adapter's `onSent` writes "sent" there too).
 */
export function notingTransport(transport: Transport, order: string[]): Transport {
  return async (input, init) => {
    order.push("fetch");
    const response = await transport(input, init);
    order.push("answered");
    return response;
  };
}
