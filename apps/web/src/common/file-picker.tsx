/**
 * A labelled file input that hands the picked file on and then clears itself, so picking the same file again (after
 * fixing it) is a change too.
 */
export function FilePicker(props: {
  readonly label: string;
  readonly accept?: string;
  readonly onFile: (file: File) => void;
}) {
  return (
    <label>
      {props.label}{' '}
      <input
        type="file"
        accept={props.accept}
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) props.onFile(file);
        }}
      />
    </label>
  );
}
