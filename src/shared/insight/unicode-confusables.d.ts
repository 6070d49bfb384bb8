/** The package ships no types: the two functions used here (Unicode confusables.txt skeletons). */
declare module 'unicode-confusables' {
  const confusables: {
    /** the string with every confusable character replaced by the character it is confused with */
    rectifyConfusion(text: string): string;
    isConfusing(text: string): boolean;
  };
  export default confusables;
}
