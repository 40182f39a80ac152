/** A failure (announced) or a note (polite), under a form. */
export function Feedback(props: { readonly error?: string | undefined; readonly note?: string | undefined }) {
  return (
    <>
      {props.error ? (
        <p role="alert" className="error">
          {props.error}
        </p>
      ) : null}
      {props.note ? (
        <p role="status" className="note">
          {props.note}
        </p>
      ) : null}
    </>
  );
}
